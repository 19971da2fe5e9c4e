-- The planner's statistics, nightly. Embedded PGlite has no autovacuum: without this job its
-- planner never learns how large the tables have grown. On PostgreSQL it repeats autovacuum's
-- analyze at the cost of a sample of each table.
INSERT INTO job_schedules (job, cron, timezone) VALUES ('analyze_tables', '50 3 * * *', 'Europe/Paris')
ON CONFLICT (job) DO NOTHING;
