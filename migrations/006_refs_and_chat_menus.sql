-- Messages by reference, and the chats' own command menus.
--
-- Messages by reference: a handler names a message it sends (outbox.ref), the sender records the
-- message_id Telegram returns under that name, and a later request of the same chat acts on the
-- message by name (outbox.target_ref), resolved when its turn comes. Deleting the prompt of a
-- hidden parameter is the first use.

ALTER TABLE outbox
    -- The name under which the message this request sends is recorded in sent_ref.
    ADD COLUMN ref text,
    -- The name of the messages this request acts on (its message_id is filled in at send time).
    ADD COLUMN target_ref text;

-- The message_ids of the messages sent under a ref, written in the transaction that removes their
-- outbox row. The parts of a split text share a ref, so a ref may have several messages. A
-- deletion by ref removes its rows; the others are removed after 48 hours (the transport's
-- cleanup), when Telegram no longer lets a bot delete the message anyway.
CREATE TABLE sent_ref (
    service_id integer NOT NULL REFERENCES service (id) ON DELETE CASCADE,
    chat_id    bigint NOT NULL,
    ref        text NOT NULL,
    message_id bigint NOT NULL,
    sent_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (service_id, chat_id, ref, message_id)
);

CREATE INDEX sent_ref_sent_at_idx ON sent_ref (sent_at);

-- The command menu a user chose for their chat with a bot (setMyCommands with the chat's scope,
-- sent when they change language with /lang): its language, NULL while the chat shows the menus
-- by client language, and the command-tree revision it was built from, so that a change of the
-- tree sends the chat its menu again.
ALTER TABLE user_service
    ADD COLUMN menu_language text,
    ADD COLUMN menu_revision bigint;

CREATE INDEX user_service_menu_idx ON user_service (service_id) WHERE menu_language IS NOT NULL;
