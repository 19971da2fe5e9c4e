-- Claims left by a process that died mid provider call are settled every 5 minutes.
INSERT INTO job_schedules (job, cron, timezone) VALUES ('reconcile_claims', '*/5 * * * *', 'Europe/Paris')
ON CONFLICT (job) DO NOTHING;
