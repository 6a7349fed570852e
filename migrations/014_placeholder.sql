-- Placeholder for a migration being written on another branch; dropped at merge.
SELECT 1;
