-- The board games in Telegram: credentials only in private chats, the digests of shared
-- boards' invitations, a bound on inline_message_id, and a greeting that names the games.

-- /web and /token give their credentials only in the user's private chat with the bot: sent in a
-- group, their built-ins issue nothing and answer the code 'private' (bot/boards/telegram,
-- access.go), worded here, before the other outputs of the built-in (order 0).
DO $$
DECLARE
    r record;
BEGIN
    FOR r IN SELECT a.command_id, a.id, a.request FROM action a
        WHERE a.type = 'builtin' AND a.request IN ('board.web', 'board.token')
    LOOP
        IF r.request = 'board.web' THEN
            PERFORM tree_action(r.command_id, r.id, 0, 'output', NULL, NULL, 'private', NULL,
                'A login link opens your account to whoever reads it, so I do not post it in a group: send /web in our private chat.',
                'Ссылка для входа открывает ваш аккаунт любому, кто её прочтёт, поэтому в группу я её не отправляю: напишите /web в личном чате со мной.');
        ELSE
            PERFORM tree_action(r.command_id, r.id, 0, 'output', NULL, NULL, 'private', NULL,
                'API tokens are not given or withdrawn in a group, where every member reads them: send /token in our private chat.',
                'API-токены не выдаются и не отзываются в группе, где их читают все участники: напишите /token в личном чате со мной.');
        END IF;
    END LOOP;
END $$;

-- A shared board's message keeps the digest of its invitation's code (the hex of the SHA-256
-- that board_invite stores), which its Join button redeems; the code, which a /start link would
-- redeem too, is kept nowhere. The codes kept so far become their digests.
UPDATE board_shared SET invite = encode(sha256(convert_to(invite, 'UTF8')), 'hex')
WHERE invite !~ '^[0-9a-f]{64}$';
COMMENT ON COLUMN board_shared.invite IS 'hex SHA-256 of the code of the board''s invitation';

-- Telegram's inline_message_id is a few dozen characters: anything far longer is refused (the
-- bot checks it first; rows from before are left as they are).
ALTER TABLE board_shared ADD CONSTRAINT board_shared_inline_message_id_length
    CHECK (length(inline_message_id) <= 256) NOT VALID;

-- The /start greeting names the board games beside the quests, unless an operator rewrote it.
UPDATE localized_string SET text = CASE lang
    WHEN 'en' THEN 'Hello, <b>{NAME}</b>! I am Questbot: I play Space Rangers text quests and board games (chess, draughts, Othello, Atari Go and more) with you. Send /quest to choose a quest, /games to play a board game.'
    ELSE 'Привет, <b>{NAME}</b>! Я Questbot: играю с вами в текстовые квесты «Космических рейнджеров» и настольные игры (шахматы, шашки, реверси, атари-го и другие). Отправьте /quest, чтобы выбрать квест, /games — чтобы сыграть в настольную игру.' END
WHERE action_id = 303 AND text IN (
    'Hello, <b>{NAME}</b>! I am Questbot: I play Space Rangers text quests with you. Send /quest to choose one.',
    'Привет, <b>{NAME}</b>! Я Questbot: играю с вами в текстовые квесты «Космических рейнджеров». Отправьте /quest, чтобы выбрать квест.');
