-- The web game server (bot/boards/web): login without passwords, the browser's sessions, the API
-- tokens of programs, the players' switch that lets anyone watch a game, and the commands /web
-- and /token as rows of the command tree.
--
-- Every secret (a login ticket, a session cookie, an API token) is random and stored only as its
-- SHA-256 hash: what this database holds opens nothing.

-- A one-time login link (/web in the bot): single use, valid for ten minutes.
CREATE TABLE web_login_ticket (
    hash       bytea PRIMARY KEY,
    service_id integer NOT NULL REFERENCES service (id) ON DELETE CASCADE,
    user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);

CREATE INDEX web_login_ticket_expires_idx ON web_login_ticket (expires_at);

-- A browser's session, made by redeeming a ticket; the cookie qb_session holds its secret. Its
-- CSRF token is derived from that secret, so it needs no column.
CREATE TABLE web_session (
    hash         bytea PRIMARY KEY,
    service_id   integer NOT NULL REFERENCES service (id) ON DELETE CASCADE,
    user_id      bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at   timestamptz NOT NULL,
    last_seen_at timestamptz NOT NULL
);

CREATE INDEX web_session_user_idx ON web_session (service_id, user_id);

-- An API token of a program (a bot player, a tournament arbiter), issued by an admin with /token:
-- it acts as user_id in the bot. Revoked tokens are kept, for the record.
CREATE TABLE web_api_token (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    hash       bytea NOT NULL UNIQUE,
    name       text NOT NULL DEFAULT '' CHECK (length(name) <= 64),
    service_id integer NOT NULL REFERENCES service (id) ON DELETE CASCADE,
    user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_by bigint NOT NULL REFERENCES users (id),
    created_at timestamptz NOT NULL,
    revoked_at timestamptz
);

-- Whether anyone may watch a game (read-only, at its address): either player switches it.
CREATE TABLE board_spectators (
    board_id bigint PRIMARY KEY REFERENCES board_session (id) ON DELETE CASCADE,
    allowed  boolean NOT NULL,
    set_by   bigint NOT NULL REFERENCES users (id),
    set_at   timestamptz NOT NULL
);

INSERT INTO param_type (name) VALUES ('WEB_LINK'), ('WEB_ARG'), ('WEB_TOKEN'), ('WEB_ID'), ('WEB_WHO');

DO $$
DECLARE
    adm_en  text := 'This command is for the bot''s admins.';
    adm_ru  text := 'Эта команда — для администраторов бота.';
    fail_en text := 'Sorry, that did not work. Please try again later.';
    fail_ru text := 'Извините, не получилось. Попробуйте позже.';
    c bigint;
    p bigint;
BEGIN
    -- /web: a one-time link that logs the user in on the web game server.
    c := tree_command('web', 'Play on the web', 'Играть в браузере');
    UPDATE command SET visible = true, order_num = 7 WHERE id = c;
    p := tree_action(c, NULL, 1, 'builtin', NULL, 'board.web', NULL, NULL, NULL, NULL);
    PERFORM tree_response_params(p, 'link', 'WEB_LINK');
    PERFORM tree_action(c, p, 1, 'output', NULL, NULL, 'ok', NULL,
        E'Your games in the browser: {WEB_LINK}\nThe link logs you in once and works for 10 minutes; do not share it. Send /web again for a new one.',
        E'Ваши партии в браузере: {WEB_LINK}\nСсылка входит один раз и действует 10 минут; никому её не передавайте. Отправьте /web снова, чтобы получить новую.');
    PERFORM tree_action(c, p, 2, 'output', NULL, NULL, 'off', NULL,
        'The web game server of this bot is not set up.', 'Веб-сервер игр этого бота не настроен.');
    PERFORM tree_action(c, p, 3, 'output', NULL, NULL, NULL, NULL, fail_en, fail_ru);

    -- /token <user id> [name], /token revoke <id>: API tokens for programs (admins).
    c := tree_command('token', 'API tokens of programs (admins)', 'API-токены программ (админам)', 'WEB_ARG');
    p := tree_action(c, NULL, 1, 'builtin', NULL, 'board.token', NULL, 'ADMIN == true', NULL, NULL);
    PERFORM tree_request_params(p, 'args', 'WEB_ARG');
    PERFORM tree_response_params(p, 'token', 'WEB_TOKEN', 'id', 'WEB_ID', 'who', 'WEB_WHO');
    PERFORM tree_action(c, p, 1, 'output', NULL, NULL, 'ok', NULL,
        E'API token #{WEB_ID} for {WEB_WHO}:\n<code>{WEB_TOKEN}</code>\nIt is shown only this once. Programs send it as <code>Authorization: Bearer …</code>; /token revoke {WEB_ID} withdraws it.',
        E'API-токен #{WEB_ID} для {WEB_WHO}:\n<code>{WEB_TOKEN}</code>\nОн показан только один раз. Программы передают его как <code>Authorization: Bearer …</code>; /token revoke {WEB_ID} отзовёт его.');
    PERFORM tree_action(c, p, 2, 'output', NULL, NULL, 'revoked', NULL,
        'API token #{WEB_ID} is revoked.', 'API-токен #{WEB_ID} отозван.');
    PERFORM tree_action(c, p, 3, 'output', NULL, NULL, 'not_found', NULL,
        'This bot has no API token #{WEB_ID} in force.', 'Действующего API-токена #{WEB_ID} в этом боте нет.');
    PERFORM tree_action(c, p, 4, 'output', NULL, NULL, 'unknown', NULL,
        'No user {WEB_WHO} has written to this bot.', 'Пользователь {WEB_WHO} этому боту не писал.');
    PERFORM tree_action(c, p, 5, 'output', NULL, NULL, 'usage', NULL,
        'Usage: /token <i>user id</i> [<i>name</i>] issues a token; /token revoke <i>number</i> withdraws one.',
        'Использование: /token <i>id пользователя</i> [<i>название</i>] выдаёт токен; /token revoke <i>номер</i> отзывает.');
    PERFORM tree_action(c, p, 6, 'output', NULL, NULL, 'forbidden', NULL, adm_en, adm_ru);
    PERFORM tree_action(c, p, 7, 'output', NULL, NULL, NULL, NULL, fail_en, fail_ru);
    PERFORM tree_action(c, NULL, 2, 'output', NULL, NULL, NULL, 'ADMIN != true', adm_en, adm_ru);
END $$;
