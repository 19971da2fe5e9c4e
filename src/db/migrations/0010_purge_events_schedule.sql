-- Retention of the event feed and the webhook log, daily at 03:30 Paris time.
INSERT INTO job_schedules (job, cron, timezone) VALUES ('purge_events', '30 3 * * *', 'Europe/Paris')
ON CONFLICT (job) DO NOTHING;
