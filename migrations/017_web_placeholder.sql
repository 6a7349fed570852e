-- Stands in for 017_web.sql of the web server's API on this branch only, so that 018 applies in
-- order; it is deleted when the branches are merged.
SELECT 1;
