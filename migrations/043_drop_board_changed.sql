-- The live updates of boards come from their numbered record alone (037_board_event_record.sql:
-- every change a board operation commits is written there in its transaction and announced on
-- the channel board_event): the old signal of 018_board_events.sql, a notification on the
-- channel board_changed at each save of a board, is gone, with the notifications of a rematch
-- offered or answered on the old board (039_board_archive_rematch.sql), which the service now
-- records as an event of the old board.
DROP TRIGGER board_rematch_answered ON board_session;
DROP TRIGGER board_rematch_offered ON board_rematch;
DROP FUNCTION board_rematch_notify();
DROP TRIGGER board_session_changed ON board_session;
DROP TRIGGER board_session_created ON board_session;
DROP FUNCTION board_changed_notify();
