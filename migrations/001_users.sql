-- Users, bots and who uses which bot.

-- One row per Telegram bot (one bot token). Several bots run in one process and share the users.
CREATE TABLE service (
    id          integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- Telegram's id of the bot account (the number before the colon of its token); unknown until
    -- the bot has introduced itself with getMe.
    bot_user_id bigint UNIQUE,
    username    text,
    -- The bot token, when bots are configured in the database rather than from the environment.
    token       text UNIQUE,
    enabled     boolean NOT NULL DEFAULT true,
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- A Telegram user, keyed by the Telegram user id. The username is only a display value: many
-- users have none, and it can change.
CREATE TABLE users (
    id           bigint PRIMARY KEY,
    chat_id      bigint NOT NULL,
    username     text,
    first_name   text NOT NULL DEFAULT '',
    last_name    text,
    -- IETF language tag as Telegram reports it (language_code), or as the user chose it.
    language     text NOT NULL DEFAULT 'en',
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_seen_at timestamptz NOT NULL DEFAULT now(),
    is_admin     boolean NOT NULL DEFAULT false,
    -- Set when Telegram reports that the user blocked the bot; cleared when they write again.
    blocked_at   timestamptz
);

CREATE INDEX users_chat_id_idx ON users (chat_id);

-- Membership of a user in a bot, with the per-bot developer role.
CREATE TABLE user_service (
    user_id      bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    service_id   integer NOT NULL REFERENCES service (id) ON DELETE CASCADE,
    is_developer boolean NOT NULL DEFAULT false,
    joined_at    timestamptz NOT NULL DEFAULT now(),
    last_seen_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, service_id)
);

CREATE INDEX user_service_service_idx ON user_service (service_id);
