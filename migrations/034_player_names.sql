-- The names a player gives the player tags of the quests' texts (/settings, bot/questplay):
-- their own name for <Ranger> and <Player>, and the planets and stars of <FromPlanet>,
-- <FromStar> (where the ranger comes from) and <ToPlanet>, <ToStar> (where the quest sends them).
-- NULL is the default: the Telegram first name, and the real names of the quest's language.
-- quest/questpg owns the table; a running game reads it with its row.
CREATE TABLE player_names (
    user_id     bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    ranger      text,
    from_planet text,
    from_star   text,
    to_planet   text,
    to_star     text,
    updated_at  timestamptz NOT NULL DEFAULT now()
);

INSERT INTO param_type (name) VALUES ('SETTINGS_ARG') ON CONFLICT DO NOTHING;

-- /settings [field value]: the built-in quest.settings shows the names, or changes one, and
-- answers itself.
DO $$
DECLARE
    c bigint;
    p bigint;
BEGIN
    c := tree_command('settings', 'Your name and planets in quests', 'Ваше имя и планеты в квестах', 'SETTINGS_ARG');
    UPDATE command SET visible = true, order_num = 89 WHERE id = c;
    p := tree_action(c, NULL, 1, 'builtin', NULL, 'quest.settings', NULL, NULL, NULL, NULL);
    PERFORM tree_request_params(p, 'what', 'SETTINGS_ARG');
END $$;

-- /help names /settings.
UPDATE localized_string
SET text = replace(text, E'/lang — change the language\n',
    E'/settings — your name and planets in quests\n/lang — change the language\n')
WHERE action_id = 601 AND lang = 'en';
UPDATE localized_string
SET text = replace(text, E'/lang — сменить язык\n',
    E'/settings — ваше имя и планеты в квестах\n/lang — сменить язык\n')
WHERE action_id = 601 AND lang = 'ru';
