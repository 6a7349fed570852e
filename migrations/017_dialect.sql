-- Quests written for the original Telegram bot (DagazBotV3) play by its rules: each quest of the
-- catalogue names the dialect it is played in (bot/questplay says what each changes), settable
-- with /setquest N dialect … and on import (questbot quests add).

-- reference: the reference player (space-rangers-quest), exactly; dagazbot: the original bot's
-- rendering rules and its rule for jumps that share a text.
ALTER TABLE script ADD COLUMN dialect text NOT NULL DEFAULT 'reference'
    CHECK (dialect IN ('reference', 'dagazbot'));

-- /setquest <id> <field> <value> (008_developers.sql) with one more field: dialect (reference or
-- dagazbot).
CREATE OR REPLACE FUNCTION dev_set_quest(p_user bigint, p_service integer, p_id text, p_field text, p_value text)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
    want  bigint;
    field text := lower(btrim(COALESCE(p_field, '')));
    val   text := btrim(COALESCE(p_value, ''));
    s     script%ROWTYPE;
    n     bigint;
BEGIN
    IF NOT dev_is_admin(p_user) THEN
        RETURN jsonb_build_object('result_code', 'not_admin');
    END IF;
    IF btrim(COALESCE(p_id, '')) !~ '^#?[0-9]{1,18}$' OR field = '' OR val = '' THEN
        RETURN jsonb_build_object('result_code', 'usage');
    END IF;
    want := ltrim(btrim(p_id), '#')::bigint;
    SELECT * INTO s FROM script
    WHERE id = want AND (service_id IS NULL OR service_id = p_service) FOR UPDATE;
    IF NOT FOUND THEN
        RETURN jsonb_build_object('result_code', 'not_found');
    END IF;
    CASE field
    WHEN 'listed' THEN
        IF lower(val) IN ('yes', 'on', 'true', '1', 'да') THEN
            UPDATE script SET listed = true WHERE id = want;
            val := 'yes';
        ELSIF lower(val) IN ('no', 'off', 'false', '0', 'нет') THEN
            UPDATE script SET listed = false WHERE id = want;
            val := 'no';
        ELSE
            RETURN jsonb_build_object('result_code', 'bad_value');
        END IF;
    WHEN 'name' THEN
        IF char_length(val) > 64 OR val ~ '[[:cntrl:]]' THEN
            RETURN jsonb_build_object('result_code', 'bad_value');
        END IF;
        UPDATE script SET name = val WHERE id = want;
    WHEN 'lang', 'language' THEN
        val := lower(val);
        IF val NOT IN ('en', 'ru') THEN
            RETURN jsonb_build_object('result_code', 'bad_value');
        END IF;
        IF val <> s.language THEN
            SELECT COALESCE(max(version), 0) + 1 INTO n FROM script WHERE common_name = s.common_name AND language = val;
            UPDATE script SET language = val, version = n WHERE id = want;
        END IF;
    WHEN 'common' THEN
        val := lower(val);
        IF val !~ '^[a-z0-9][a-z0-9_.-]{0,63}$' THEN
            RETURN jsonb_build_object('result_code', 'bad_value');
        END IF;
        IF val <> s.common_name THEN
            SELECT COALESCE(max(version), 0) + 1 INTO n FROM script WHERE common_name = val AND language = s.language;
            UPDATE script SET common_name = val, version = n WHERE id = want;
        END IF;
    WHEN 'bonus', 'penalty' THEN
        IF val !~ '^[0-9]{1,7}$' OR val::integer > 1000000 THEN
            RETURN jsonb_build_object('result_code', 'bad_value');
        END IF;
        val := val::integer::text;
        IF field = 'bonus' THEN
            UPDATE script SET win_bonus = val::integer WHERE id = want;
        ELSE
            UPDATE script SET death_penalty = val::integer WHERE id = want;
        END IF;
    WHEN 'dialect' THEN
        val := lower(val);
        IF val NOT IN ('reference', 'dagazbot') THEN
            RETURN jsonb_build_object('result_code', 'bad_value');
        END IF;
        UPDATE script SET dialect = val WHERE id = want;
    ELSE
        RETURN jsonb_build_object('result_code', 'usage');
    END CASE;
    RETURN jsonb_build_object('result_code', 'ok', 'quest', (SELECT name FROM script WHERE id = want),
        'field', field, 'value', val);
END $$;

-- The texts of /setquest and /devhelp that list the fields.
UPDATE localized_string l SET text = CASE l.lang
    WHEN 'en' THEN '«{DEV_VALUE}» is not a valid {DEV_FIELD}: listed is yes or no; name is up to 64 characters; lang is en or ru; common is up to 64 lower-case letters, digits, «.», «_» or «-»; bonus and penalty are 0 to 1000000; dialect is reference or dagazbot.'
    ELSE '«{DEV_VALUE}» — недопустимое значение {DEV_FIELD}: listed — yes или no; name — до 64 символов; lang — en или ru; common — до 64 строчных латинских букв, цифр, «.», «_» или «-»; bonus и penalty — от 0 до 1000000; dialect — reference или dagazbot.' END
FROM action a JOIN command c ON c.id = a.command_id
WHERE l.action_id = a.id AND c.name = 'setquest' AND c.service_id IS NULL AND a.result_code = 'bad_value';

UPDATE localized_string l SET text = CASE l.lang
    WHEN 'en' THEN 'Usage: /setquest <i>number</i> <i>field</i> <i>value</i>; the fields are listed (yes or no), name, lang (en or ru), common (the name its language versions share), bonus and penalty (credits on a win, on a death), dialect (reference: as the reference player; dagazbot: as the original bot, for the quests written for it).'
    ELSE 'Использование: /setquest <i>номер</i> <i>поле</i> <i>значение</i>; поля: listed (yes или no), name, lang (en или ru), common (общее имя языковых версий), bonus и penalty (кредиты за победу и за гибель), dialect (reference — как эталонный плеер; dagazbot — как исходный бот, для квестов, написанных для него).' END
FROM action a JOIN command c ON c.id = a.command_id
WHERE l.action_id = a.id AND c.name = 'setquest' AND c.service_id IS NULL AND a.result_code = 'usage';

UPDATE localized_string l SET text = regexp_replace(l.text, '(penalty <i>[^<]*</i>)', '\1 | dialect reference|dagazbot')
FROM action a JOIN command c ON c.id = a.command_id
WHERE l.action_id = a.id AND c.name = 'devhelp' AND c.service_id IS NULL AND l.text LIKE '%/setquest%';
