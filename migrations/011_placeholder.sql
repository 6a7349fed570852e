-- Placeholder for migration 011, which is written on another branch; dropped at merge.
-- The migration library refuses a file without a statement, hence the no-op.
SELECT 1;
