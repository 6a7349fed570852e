-- Stands in for migration 013, written on another branch; dropped at merge.
SELECT 1;
