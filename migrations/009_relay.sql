-- Messages between users and admins (package bot/relay): users' free texts relayed to the admins,
-- admins' broadcasts, replies threaded both ways, the black list and the news; with the admin
-- commands that manage the black list and the news (/ban, /unban, /banlist, /news, /newslist,
-- /newsend) as rows of the command tree and the stored procedures they call.

-- The language a user is spoken to in, as the bot picks it from their language code
-- (bot.Language): Russian for ru and its regional variants, English otherwise.
CREATE FUNCTION relay_lang(code text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN lower(code) = 'ru' OR lower(code) LIKE 'ru-%' THEN 'ru' ELSE 'en' END
$$;

-- A message relayed: a user's text to the admins, an admin's broadcast, or a reply to a relayed
-- message (reply_to). It names the original in its author's chat; the text itself is not kept.
CREATE TABLE relay_message (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    service_id integer NOT NULL REFERENCES service (id) ON DELETE CASCADE,
    kind       text NOT NULL CHECK (kind IN ('to_admins', 'broadcast', 'reply')),
    author_id  bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    chat_id    bigint NOT NULL,
    message_id bigint NOT NULL,
    reply_to   bigint REFERENCES relay_message (id) ON DELETE SET NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX relay_message_author_idx ON relay_message (service_id, author_id, created_at);
CREATE INDEX relay_message_created_idx ON relay_message (created_at);

-- The copies of relayed messages in other chats, keyed by chat and message id together (message
-- ids repeat across chats), so that a reply to a copy finds the original. Copies are sent under
-- the ref 'relay:<relay_message.id>'; the trigger below records them when Telegram accepts them.
CREATE TABLE relay_copy (
    service_id integer NOT NULL REFERENCES service (id) ON DELETE CASCADE,
    chat_id    bigint NOT NULL,
    message_id bigint NOT NULL,
    relay_id   bigint NOT NULL REFERENCES relay_message (id) ON DELETE CASCADE,
    PRIMARY KEY (service_id, chat_id, message_id)
);

CREATE INDEX relay_copy_relay_idx ON relay_copy (relay_id);

-- The outbox rows of relayed copies, by ref: a broadcast counts its copies still waiting.
CREATE INDEX outbox_relay_ref_idx ON outbox (ref) WHERE ref LIKE 'relay:%';

-- The admins, whom every relayed message goes to.
CREATE INDEX users_admin_idx ON users (id) WHERE is_admin;

-- Chats whose messages are not relayed to the admins (they can still play).
CREATE TABLE black_list (
    service_id integer NOT NULL REFERENCES service (id) ON DELETE CASCADE,
    chat_id    bigint NOT NULL,
    added_by   bigint REFERENCES users (id) ON DELETE SET NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (service_id, chat_id)
);

-- An admin's broadcast: a draft until the admin confirms it, then sent by the relay worker to the
-- users of the bot who speak its language (except its author), in user id order, a few at a
-- time. The worker queues each batch in the transaction that moves the cursor, so a restart
-- resumes after the last user queued and nobody gets it twice.
CREATE TABLE broadcast (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    service_id  integer NOT NULL REFERENCES service (id) ON DELETE CASCADE,
    relay_id    bigint NOT NULL REFERENCES relay_message (id) ON DELETE CASCADE,
    author_id   bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- The author's chat, where the progress message (ref 'broadcast:<id>') is edited.
    chat_id     bigint NOT NULL,
    lang        text NOT NULL CHECK (lang IN ('en', 'ru')),
    -- The text as the admin wrote it (plain text).
    text        text NOT NULL,
    status      text NOT NULL DEFAULT 'draft'
                CHECK (status IN ('draft', 'running', 'done', 'stopped', 'cancelled')),
    -- The users it is for (members of the bot by then, including those who had blocked it:
    -- they are reported as not reached), counted when the admin confirmed it; users who join
    -- later do not get it.
    total       integer NOT NULL DEFAULT 0,
    started_at  timestamptz,
    -- The id of the last user queued; NULL before the first.
    cursor_id   bigint,
    queued      integer NOT NULL DEFAULT 0,
    -- Users passed over because they had blocked the bot when their turn came.
    skipped     integer NOT NULL DEFAULT 0,
    -- Every user has been queued (or skipped).
    exhausted   boolean NOT NULL DEFAULT false,
    -- The progress text last shown to the admin, and when.
    reported    text,
    reported_at timestamptz,
    created_at  timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz
);

CREATE INDEX broadcast_running_idx ON broadcast (id) WHERE status = 'running';

-- News: a text in English (required) and Russian (else the English one is shown), shown during
-- a time window to the users of a bot (service_id) or of every bot (NULL). audience: 'all'
-- (mandatory: every user), 'new' (only users who joined the bot after it was written) or
-- 'existing' (only users who were there when it was written). Each user gets it once, with
-- their next message or button press inside the window. Texts are HTML.
CREATE TABLE news (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    service_id integer REFERENCES service (id) ON DELETE CASCADE,
    text_en    text NOT NULL CHECK (btrim(text_en) <> ''),
    text_ru    text CHECK (btrim(text_ru) <> ''),
    audience   text NOT NULL DEFAULT 'all' CHECK (audience IN ('all', 'new', 'existing')),
    starts_at  timestamptz NOT NULL DEFAULT now(),
    ends_at    timestamptz,
    author_id  bigint REFERENCES users (id) ON DELETE SET NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    CHECK (ends_at IS NULL OR ends_at > starts_at)
);

CREATE INDEX news_active_idx ON news (ends_at);

-- Who got which news: a row is written in the transaction that queues the message (so a user
-- never gets it twice), and delivered_at and message_id when Telegram accepts it (the message is
-- sent under the ref 'news:<news.id>:<users.id>', recorded by the trigger below).
CREATE TABLE news_receipt (
    news_id      bigint NOT NULL REFERENCES news (id) ON DELETE CASCADE,
    user_id      bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    queued_at    timestamptz NOT NULL DEFAULT now(),
    delivered_at timestamptz,
    message_id   bigint,
    PRIMARY KEY (news_id, user_id)
);

-- Records what the sender learnt of a relayed copy or a news message: its message_id. It runs in
-- the sender's transaction, so it must not fail: the WHEN clause lets through only refs whose
-- numbers fit a bigint.
CREATE FUNCTION relay_record_sent() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    parts text[] := string_to_array(NEW.ref, ':');
BEGIN
    IF parts[1] = 'relay' THEN
        INSERT INTO relay_copy (service_id, chat_id, message_id, relay_id)
        SELECT NEW.service_id, NEW.chat_id, NEW.message_id, m.id
        FROM relay_message m WHERE m.id = parts[2]::bigint
        ON CONFLICT DO NOTHING;
    ELSE
        UPDATE news_receipt SET delivered_at = NEW.sent_at, message_id = NEW.message_id
        WHERE news_id = parts[2]::bigint AND user_id = parts[3]::bigint AND delivered_at IS NULL;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER sent_ref_relay AFTER INSERT ON sent_ref FOR EACH ROW
    WHEN (NEW.ref ~ '^(relay:[0-9]{1,18}|news:[0-9]{1,18}:[0-9]{1,18})$')
    EXECUTE FUNCTION relay_record_sent();

-- ---- The admin commands' procedures. Each checks that its caller is an admin itself, whatever
-- ---- the tree's guards say, and answers {"result_code": ...}.

CREATE FUNCTION relay_is_admin(p_user bigint) RETURNS boolean LANGUAGE sql STABLE AS $$
    SELECT COALESCE((SELECT is_admin FROM users WHERE id = p_user), false)
$$;

-- The user of a bot a command names: a number is a chat id (as relayed messages show it) or a
-- user id, anything else a username, with or without its @, in any case.
CREATE FUNCTION relay_find_user(p_service integer, p_target text)
RETURNS TABLE (id bigint, chat_id bigint, label text, is_admin boolean) LANGUAGE sql STABLE AS $$
    SELECT u.id, u.chat_id,
           btrim(u.first_name || COALESCE(' @' || u.username, '')) || ' (id ' || u.chat_id || ')', u.is_admin
    FROM users u JOIN user_service us ON us.user_id = u.id AND us.service_id = p_service
    WHERE CASE WHEN btrim(p_target) ~ '^-?[0-9]{1,18}$'
               THEN u.chat_id = btrim(p_target)::bigint OR u.id = btrim(p_target)::bigint
               ELSE lower(u.username) = lower(ltrim(btrim(p_target), '@')) END
    ORDER BY u.id LIMIT 1
$$;

-- /ban: puts a user's chat on the black list: "ok", "already", "admin" (admins cannot be
-- black-listed), "unknown", "usage" (nothing named) or "not_admin"; "who" names the user.
CREATE FUNCTION relay_ban(p_user bigint, p_service integer, p_target text)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
    t record;
BEGIN
    IF NOT relay_is_admin(p_user) THEN
        RETURN jsonb_build_object('result_code', 'not_admin');
    END IF;
    IF btrim(COALESCE(p_target, '')) = '' THEN
        RETURN jsonb_build_object('result_code', 'usage');
    END IF;
    SELECT * INTO t FROM relay_find_user(p_service, p_target);
    IF NOT FOUND THEN
        RETURN jsonb_build_object('result_code', 'unknown');
    END IF;
    IF t.is_admin THEN
        RETURN jsonb_build_object('result_code', 'admin', 'who', t.label);
    END IF;
    INSERT INTO black_list (service_id, chat_id, added_by) VALUES (p_service, t.chat_id, p_user)
    ON CONFLICT DO NOTHING;
    IF NOT FOUND THEN
        RETURN jsonb_build_object('result_code', 'already', 'who', t.label);
    END IF;
    RETURN jsonb_build_object('result_code', 'ok', 'who', t.label, 'chat', t.chat_id::text);
END $$;

-- /unban: takes a chat off the black list: "ok", "not_listed", "usage" or "not_admin". A number
-- is taken as the chat id even when no user of the bot has it any more.
CREATE FUNCTION relay_unban(p_user bigint, p_service integer, p_target text)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
    chat  bigint;
    label text;
BEGIN
    IF NOT relay_is_admin(p_user) THEN
        RETURN jsonb_build_object('result_code', 'not_admin');
    END IF;
    IF btrim(COALESCE(p_target, '')) = '' THEN
        RETURN jsonb_build_object('result_code', 'usage');
    END IF;
    SELECT f.chat_id, f.label INTO chat, label FROM relay_find_user(p_service, p_target) f;
    IF chat IS NULL AND btrim(p_target) ~ '^-?[0-9]{1,18}$' THEN
        chat := btrim(p_target)::bigint;
        label := 'chat ' || chat;
    END IF;
    DELETE FROM black_list WHERE service_id = p_service AND black_list.chat_id = chat;
    IF chat IS NULL OR NOT FOUND THEN
        RETURN jsonb_build_object('result_code', 'not_listed', 'who', COALESCE(label, btrim(p_target)));
    END IF;
    RETURN jsonb_build_object('result_code', 'ok', 'who', label);
END $$;

-- /banlist: "ok" with "list", one line per chat, or "empty"; "not_admin".
CREATE FUNCTION relay_banned(p_user bigint, p_service integer)
RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
DECLARE
    list text;
BEGIN
    IF NOT relay_is_admin(p_user) THEN
        RETURN jsonb_build_object('result_code', 'not_admin');
    END IF;
    SELECT string_agg(b.chat_id::text
               || COALESCE(' · ' || btrim(u.first_name || COALESCE(' @' || u.username, '')), '')
               || ' · ' || to_char(b.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'), E'\n' ORDER BY b.created_at, b.chat_id)
    INTO list
    FROM black_list b LEFT JOIN users u ON u.id = b.chat_id
    WHERE b.service_id = p_service;
    IF list IS NULL THEN
        RETURN jsonb_build_object('result_code', 'empty');
    END IF;
    RETURN jsonb_build_object('result_code', 'ok', 'list', list);
END $$;

-- The choices of /news in a language: {"audiences": [...], "days": [...]}, lists for menus.
CREATE FUNCTION news_choices(p_lang text) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN p_lang = 'ru' THEN jsonb_build_object(
        'audiences', jsonb_build_array(
            jsonb_build_object('value', 'all', 'label', 'Всем (обязательная)'),
            jsonb_build_object('value', 'new', 'label', 'Только тем, кто придёт после'),
            jsonb_build_object('value', 'existing', 'label', 'Только тем, кто уже здесь')),
        'days', jsonb_build_array(
            jsonb_build_object('value', '1', 'label', '1 день'),
            jsonb_build_object('value', '7', 'label', '7 дней'),
            jsonb_build_object('value', '30', 'label', '30 дней'),
            jsonb_build_object('value', '365', 'label', 'Год')))
    ELSE jsonb_build_object(
        'audiences', jsonb_build_array(
            jsonb_build_object('value', 'all', 'label', 'Everybody (mandatory)'),
            jsonb_build_object('value', 'new', 'label', 'Only users who join from now on'),
            jsonb_build_object('value', 'existing', 'label', 'Only users who are here now')),
        'days', jsonb_build_array(
            jsonb_build_object('value', '1', 'label', '1 day'),
            jsonb_build_object('value', '7', 'label', '7 days'),
            jsonb_build_object('value', '30', 'label', '30 days'),
            jsonb_build_object('value', '365', 'label', 'A year')))
    END
$$;

-- Escapes a plain text for Telegram's HTML.
CREATE FUNCTION relay_html(p text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT replace(replace(replace(p, '&', '&amp;'), '<', '&lt;'), '>', '&gt;')
$$;

-- /news: publishes a news item of the caller's bot from now on for p_days days. The texts are
-- the admin's plain text (escaped here); a Russian text of "-" or nothing means none. "ok" with
-- "id", "cancelled" (an English text of "-"), "invalid" or "not_admin".
CREATE FUNCTION news_add(p_user bigint, p_service integer, p_en text, p_ru text, p_audience text, p_days text)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
    en   text := btrim(COALESCE(p_en, ''));
    ru   text := btrim(COALESCE(p_ru, ''));
    days integer;
    id   bigint;
BEGIN
    IF NOT relay_is_admin(p_user) THEN
        RETURN jsonb_build_object('result_code', 'not_admin');
    END IF;
    IF en IN ('', '-') THEN
        RETURN jsonb_build_object('result_code', 'cancelled');
    END IF;
    IF p_audience NOT IN ('all', 'new', 'existing') OR btrim(COALESCE(p_days, '')) !~ '^[0-9]{1,3}$' THEN
        RETURN jsonb_build_object('result_code', 'invalid');
    END IF;
    days := btrim(p_days)::integer;
    IF days NOT BETWEEN 1 AND 365 THEN
        RETURN jsonb_build_object('result_code', 'invalid');
    END IF;
    INSERT INTO news (service_id, text_en, text_ru, audience, starts_at, ends_at, author_id)
    VALUES (p_service, relay_html(en), CASE WHEN ru IN ('', '-') THEN NULL ELSE relay_html(ru) END, p_audience,
            now(), now() + make_interval(days => days), p_user)
    RETURNING news.id INTO id;
    RETURN jsonb_build_object('result_code', 'ok', 'id', id::text);
END $$;

-- /newslist: the news of the caller's bot that are not over, with how many users got each:
-- "ok" with "list", "empty" or "not_admin".
CREATE FUNCTION news_list(p_user bigint, p_service integer, p_lang text)
RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
DECLARE
    ru   boolean := p_lang = 'ru';
    list text;
BEGIN
    IF NOT relay_is_admin(p_user) THEN
        RETURN jsonb_build_object('result_code', 'not_admin');
    END IF;
    SELECT string_agg('#' || n.id || ' · '
               || CASE n.audience
                      WHEN 'all' THEN CASE WHEN ru THEN 'всем' ELSE 'everybody' END
                      WHEN 'new' THEN CASE WHEN ru THEN 'новым' ELSE 'new users' END
                      ELSE CASE WHEN ru THEN 'тем, кто был' ELSE 'existing users' END END
               || ' · ' || CASE WHEN ru THEN 'до ' ELSE 'until ' END
               || COALESCE(to_char(n.ends_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') || ' UTC', '—')
               || ' · ' || CASE WHEN ru THEN 'получили: ' ELSE 'delivered: ' END
               || (SELECT count(*) FROM news_receipt r WHERE r.news_id = n.id AND r.delivered_at IS NOT NULL)
               || E'\n    ' || left(regexp_replace(n.text_en, '\s+', ' ', 'g'), 60),
               E'\n' ORDER BY n.id)
    INTO list
    FROM news n
    WHERE (n.service_id = p_service OR n.service_id IS NULL) AND (n.ends_at IS NULL OR n.ends_at > now());
    IF list IS NULL THEN
        RETURN jsonb_build_object('result_code', 'empty');
    END IF;
    RETURN jsonb_build_object('result_code', 'ok', 'list', list);
END $$;

-- /newsend: ends a news item of the caller's bot now: "ok", "unknown", "usage" or "not_admin".
CREATE FUNCTION news_end(p_user bigint, p_service integer, p_id text)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
    want bigint;
BEGIN
    IF NOT relay_is_admin(p_user) THEN
        RETURN jsonb_build_object('result_code', 'not_admin');
    END IF;
    IF btrim(COALESCE(p_id, '')) !~ '^#?[0-9]{1,18}$' THEN
        RETURN jsonb_build_object('result_code', 'usage');
    END IF;
    want := ltrim(btrim(p_id), '#')::bigint;
    UPDATE news SET ends_at = greatest(now(), starts_at + interval '1 microsecond')
    WHERE id = want AND service_id = p_service AND (ends_at IS NULL OR ends_at > now());
    IF NOT FOUND THEN
        RETURN jsonb_build_object('result_code', 'unknown', 'id', want::text);
    END IF;
    RETURN jsonb_build_object('result_code', 'ok', 'id', want::text);
END $$;

-- ---- The commands, written with the helpers of 008_developers.sql (tree_command, tree_action).

INSERT INTO param_type (name) VALUES
    ('BAN_TARGET'), ('BAN_WHO'), ('BAN_LIST'),
    ('NEWS_EN'), ('NEWS_RU'), ('NEWS_AUDIENCE'), ('NEWS_DAYS'), ('NEWS_ID'), ('NEWS_LIST')
ON CONFLICT DO NOTHING;

DO $$
DECLARE
    refuse_en text := 'This command is for the bot''s admins.';
    refuse_ru text := 'Эта команда — для администраторов бота.';
    fail_en   text := 'Sorry, that did not work. Please try again later.';
    fail_ru   text := 'Извините, не получилось. Попробуйте позже.';
    c bigint;
    p bigint;
    f bigint;
BEGIN
    -- /ban <id or @username>
    c := tree_command('ban', 'Black-list a user (admins)', 'Внести в чёрный список (админам)');
    INSERT INTO command_param (command_id, order_num, param) VALUES (c, 1, 'BAN_TARGET');
    p := tree_action(c, NULL, 1, 'procedure', NULL, 'relay_ban', NULL, 'ADMIN == true', NULL, NULL);
    INSERT INTO request_param (action_id, order_num, name, param) VALUES
        (p, 1, 'user', 'USER'), (p, 2, 'service', 'SERVICE'), (p, 3, 'target', 'BAN_TARGET');
    INSERT INTO response_param (action_id, name, param) VALUES (p, 'who', 'BAN_WHO');
    PERFORM tree_action(c, p, 1, 'output', NULL, NULL, 'ok', NULL,
        '{BAN_WHO} is on the black list: their messages no longer reach the admins (they can still play). /unban {BAN_TARGET} takes them off.',
        '{BAN_WHO} — в чёрном списке: их сообщения больше не доходят до администраторов (играть они могут). /unban {BAN_TARGET} снимет запрет.');
    PERFORM tree_action(c, p, 2, 'output', NULL, NULL, 'already', NULL,
        '{BAN_WHO} is already on the black list.', '{BAN_WHO} — уже в чёрном списке.');
    PERFORM tree_action(c, p, 3, 'output', NULL, NULL, 'admin', NULL,
        '{BAN_WHO} is an admin; admins cannot be black-listed.',
        '{BAN_WHO} — администратор; администраторов нельзя внести в чёрный список.');
    PERFORM tree_action(c, p, 4, 'output', NULL, NULL, 'unknown', NULL,
        'No user «{BAN_TARGET}» has written to this bot. Give the id a relayed message shows, or the @username.',
        'Пользователь «{BAN_TARGET}» этому боту не писал. Укажите id из пересланного сообщения или @имя.');
    PERFORM tree_action(c, p, 5, 'output', NULL, NULL, 'usage', NULL,
        'Usage: /ban <i>id</i> or /ban @<i>username</i>. Every relayed message shows its author''s id.',
        'Использование: /ban <i>id</i> или /ban @<i>имя</i>. В каждом пересланном сообщении указан id автора.');
    PERFORM tree_action(c, p, 6, 'output', NULL, NULL, 'not_admin', NULL, refuse_en, refuse_ru);
    PERFORM tree_action(c, p, 7, 'output', NULL, NULL, NULL, NULL, fail_en, fail_ru);
    PERFORM tree_action(c, NULL, 2, 'output', NULL, NULL, NULL, 'ADMIN != true', refuse_en, refuse_ru);

    -- /unban <id or @username>
    c := tree_command('unban', 'Take a user off the black list (admins)', 'Убрать из чёрного списка (админам)');
    INSERT INTO command_param (command_id, order_num, param) VALUES (c, 1, 'BAN_TARGET');
    p := tree_action(c, NULL, 1, 'procedure', NULL, 'relay_unban', NULL, 'ADMIN == true', NULL, NULL);
    INSERT INTO request_param (action_id, order_num, name, param) VALUES
        (p, 1, 'user', 'USER'), (p, 2, 'service', 'SERVICE'), (p, 3, 'target', 'BAN_TARGET');
    INSERT INTO response_param (action_id, name, param) VALUES (p, 'who', 'BAN_WHO');
    PERFORM tree_action(c, p, 1, 'output', NULL, NULL, 'ok', NULL,
        '{BAN_WHO} is off the black list: their messages reach the admins again.',
        '{BAN_WHO} — больше не в чёрном списке: их сообщения снова доходят до администраторов.');
    PERFORM tree_action(c, p, 2, 'output', NULL, NULL, 'not_listed', NULL,
        '{BAN_WHO} is not on the black list. /banlist shows who is.',
        '{BAN_WHO} — не в чёрном списке. /banlist покажет, кто в нём.');
    PERFORM tree_action(c, p, 3, 'output', NULL, NULL, 'usage', NULL,
        'Usage: /unban <i>id</i> or /unban @<i>username</i>.',
        'Использование: /unban <i>id</i> или /unban @<i>имя</i>.');
    PERFORM tree_action(c, p, 4, 'output', NULL, NULL, 'not_admin', NULL, refuse_en, refuse_ru);
    PERFORM tree_action(c, p, 5, 'output', NULL, NULL, NULL, NULL, fail_en, fail_ru);
    PERFORM tree_action(c, NULL, 2, 'output', NULL, NULL, NULL, 'ADMIN != true', refuse_en, refuse_ru);

    -- /banlist
    c := tree_command('banlist', 'The black list (admins)', 'Чёрный список (админам)');
    p := tree_action(c, NULL, 1, 'procedure', NULL, 'relay_banned', NULL, 'ADMIN == true', NULL, NULL);
    INSERT INTO request_param (action_id, order_num, name, param) VALUES (p, 1, 'user', 'USER'), (p, 2, 'service', 'SERVICE');
    INSERT INTO response_param (action_id, name, param) VALUES (p, 'list', 'BAN_LIST');
    PERFORM tree_action(c, p, 1, 'output', NULL, NULL, 'ok', NULL,
        E'<b>Black list</b> (chat id · name · since):\n{BAN_LIST}', E'<b>Чёрный список</b> (id чата · имя · с какого дня):\n{BAN_LIST}');
    PERFORM tree_action(c, p, 2, 'output', NULL, NULL, 'empty', NULL,
        'The black list is empty.', 'Чёрный список пуст.');
    PERFORM tree_action(c, p, 3, 'output', NULL, NULL, 'not_admin', NULL, refuse_en, refuse_ru);
    PERFORM tree_action(c, p, 4, 'output', NULL, NULL, NULL, NULL, fail_en, fail_ru);
    PERFORM tree_action(c, NULL, 2, 'output', NULL, NULL, NULL, 'ADMIN != true', refuse_en, refuse_ru);

    -- /news: the English text, the Russian text, who gets it, for how long.
    c := tree_command('news', 'Publish news (admins)', 'Опубликовать новость (админам)');
    f := tree_action(c, NULL, 1, 'folder', NULL, NULL, NULL, 'ADMIN == true', NULL, NULL);
    PERFORM tree_action(c, f, 1, 'input', 'NEWS_EN', NULL, NULL, NULL,
        'Write the news in English, as users should read it. Send - to cancel.',
        'Напишите новость по-английски, как её должны прочитать пользователи. Отправьте -, чтобы отменить.');
    PERFORM tree_action(c, f, 2, 'output', NULL, NULL, NULL, 'NEWS_EN == ''-''',
        'Cancelled: no news was published.', 'Отменено: новость не опубликована.');
    f := tree_action(c, f, 3, 'folder', NULL, NULL, NULL, 'NEWS_EN != ''-''', NULL, NULL);
    PERFORM tree_action(c, f, 1, 'input', 'NEWS_RU', NULL, NULL, NULL,
        'Now the same in Russian, or - to show the English text to Russian speakers too.',
        'Теперь то же по-русски, или -, чтобы русскоязычные тоже получили английский текст.');
    p := tree_action(c, f, 2, 'procedure', NULL, 'news_choices', NULL, NULL, NULL, NULL);
    INSERT INTO request_param (action_id, order_num, name, param) VALUES (p, 1, 'lang', 'LANG');
    INSERT INTO response_param (action_id, name, param) VALUES (p, 'audiences', 'NEWS_AUDIENCE'), (p, 'days', 'NEWS_DAYS');
    PERFORM tree_action(c, f, 3, 'list_menu', 'NEWS_AUDIENCE', NULL, NULL, NULL,
        'Who gets it?', 'Кому её показать?', 1);
    PERFORM tree_action(c, f, 4, 'list_menu', 'NEWS_DAYS', NULL, NULL, NULL,
        'For how long, from now?', 'Как долго, начиная с этой минуты?', 4);
    p := tree_action(c, f, 5, 'procedure', NULL, 'news_add', NULL, NULL, NULL, NULL);
    INSERT INTO request_param (action_id, order_num, name, param) VALUES
        (p, 1, 'user', 'USER'), (p, 2, 'service', 'SERVICE'), (p, 3, 'en', 'NEWS_EN'), (p, 4, 'ru', 'NEWS_RU'),
        (p, 5, 'audience', 'NEWS_AUDIENCE'), (p, 6, 'days', 'NEWS_DAYS');
    INSERT INTO response_param (action_id, name, param) VALUES (p, 'id', 'NEWS_ID');
    PERFORM tree_action(c, p, 1, 'output', NULL, NULL, 'ok', NULL,
        'News #{NEWS_ID} is published. Each user it is for gets it once, with their next message or button press, until it ends. /newslist shows how many got it; /newsend {NEWS_ID} withdraws it.',
        'Новость #{NEWS_ID} опубликована. Каждый, кому она предназначена, получит её один раз — со своим следующим сообщением или нажатием кнопки, пока она не закончится. /newslist покажет, сколько её получили; /newsend {NEWS_ID} снимет её.');
    PERFORM tree_action(c, p, 2, 'output', NULL, NULL, 'cancelled', NULL,
        'Cancelled: no news was published.', 'Отменено: новость не опубликована.');
    PERFORM tree_action(c, p, 3, 'output', NULL, NULL, 'not_admin', NULL, refuse_en, refuse_ru);
    PERFORM tree_action(c, p, 4, 'output', NULL, NULL, NULL, NULL,
        'The news could not be published. Please send /news again.',
        'Новость не удалось опубликовать. Отправьте /news ещё раз.');
    PERFORM tree_action(c, NULL, 2, 'output', NULL, NULL, NULL, 'ADMIN != true', refuse_en, refuse_ru);

    -- /newslist
    c := tree_command('newslist', 'News being shown (admins)', 'Текущие новости (админам)');
    p := tree_action(c, NULL, 1, 'procedure', NULL, 'news_list', NULL, 'ADMIN == true', NULL, NULL);
    INSERT INTO request_param (action_id, order_num, name, param) VALUES
        (p, 1, 'user', 'USER'), (p, 2, 'service', 'SERVICE'), (p, 3, 'lang', 'LANG');
    INSERT INTO response_param (action_id, name, param) VALUES (p, 'list', 'NEWS_LIST');
    PERFORM tree_action(c, p, 1, 'output', NULL, NULL, 'ok', NULL,
        E'<b>News</b>\n{NEWS_LIST}', E'<b>Новости</b>\n{NEWS_LIST}');
    PERFORM tree_action(c, p, 2, 'output', NULL, NULL, 'empty', NULL,
        'No news is being shown. /news publishes one.', 'Сейчас новостей нет. /news опубликует новость.');
    PERFORM tree_action(c, p, 3, 'output', NULL, NULL, 'not_admin', NULL, refuse_en, refuse_ru);
    PERFORM tree_action(c, p, 4, 'output', NULL, NULL, NULL, NULL, fail_en, fail_ru);
    PERFORM tree_action(c, NULL, 2, 'output', NULL, NULL, NULL, 'ADMIN != true', refuse_en, refuse_ru);

    -- /newsend <id>
    c := tree_command('newsend', 'Withdraw news (admins)', 'Снять новость (админам)');
    INSERT INTO command_param (command_id, order_num, param) VALUES (c, 1, 'NEWS_ID');
    p := tree_action(c, NULL, 1, 'procedure', NULL, 'news_end', NULL, 'ADMIN == true', NULL, NULL);
    INSERT INTO request_param (action_id, order_num, name, param) VALUES
        (p, 1, 'user', 'USER'), (p, 2, 'service', 'SERVICE'), (p, 3, 'id', 'NEWS_ID');
    INSERT INTO response_param (action_id, name, param) VALUES (p, 'id', 'NEWS_ID');
    PERFORM tree_action(c, p, 1, 'output', NULL, NULL, 'ok', NULL,
        'News #{NEWS_ID} is withdrawn: nobody gets it any more.', 'Новость #{NEWS_ID} снята: её больше никто не получит.');
    PERFORM tree_action(c, p, 2, 'output', NULL, NULL, 'unknown', NULL,
        'There is no news #{NEWS_ID} being shown. /newslist shows them.', 'Новости #{NEWS_ID} сейчас нет. /newslist покажет текущие.');
    PERFORM tree_action(c, p, 3, 'output', NULL, NULL, 'usage', NULL,
        'Usage: /newsend <i>number</i>; /newslist shows the numbers.', 'Использование: /newsend <i>номер</i>; номера покажет /newslist.');
    PERFORM tree_action(c, p, 4, 'output', NULL, NULL, 'not_admin', NULL, refuse_en, refuse_ru);
    PERFORM tree_action(c, p, 5, 'output', NULL, NULL, NULL, NULL, fail_en, fail_ru);
    PERFORM tree_action(c, NULL, 2, 'output', NULL, NULL, NULL, 'ADMIN != true', refuse_en, refuse_ru);
END $$;

