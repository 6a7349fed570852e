-- Stands in for migration 015, written on another branch; dropped at merge.
SELECT 1;
