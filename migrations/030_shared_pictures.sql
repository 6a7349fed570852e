-- How a shared board's message shows the board, chosen when it is posted and kept: a photo
-- message (picture) is edited with editMessageMedia, a text message with editMessageText, and
-- Telegram turns neither into the other by those edits. The boards posted before this column
-- are text.
ALTER TABLE board_shared ADD COLUMN picture boolean NOT NULL DEFAULT false;
