-- Placeholder for migration 011, written on another branch; dropped at merge. (tern wants a
-- statement in every file.)
SELECT 1;
