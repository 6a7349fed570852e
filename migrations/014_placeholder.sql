-- Stands in for migration 014, written on another branch; dropped at merge.
SELECT 1;
