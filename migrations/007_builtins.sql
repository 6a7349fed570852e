-- Built-in operations: actions that call what the bot implements in Go rather than in SQL (the
-- quest developers' tools need the running game and the files), named in action.request. A
-- bot that does not implement the name refuses the command, as for an unknown action type.
INSERT INTO action_type (name, description) VALUES
    ('builtin', 'calls the bot''s built-in operation named in request; result_code picks a child');
