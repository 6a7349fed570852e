-- The outbox no longer checks its rows' bot against the service table. Every reply of the bot
-- is a row of the outbox, inserted and deleted within a second or so, and the foreign key made
-- each insertion look up the bot's row and lock it (FOR KEY SHARE): the one row of a bot was
-- locked by every transaction that queued a message, which under load turned its locks into
-- multixacts, a write of the hottest row for each transaction. The check protected nothing:
-- rows are queued only by the transport for a service it registered, and services are never
-- deleted (a bot that is gone keeps its row, its users and its history). The inbox keeps its
-- key: an update handled at once never touches it.
ALTER TABLE outbox DROP CONSTRAINT outbox_service_id_fkey;
