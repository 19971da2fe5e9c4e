-- Stripe hotels' payouts, fetched from Stripe's API daily (docs/payouts.md): each payout of the
-- last 30 days not stored yet becomes a remittance, its lines matched to the ledger. 06:40, hotel
-- time: after the night's payouts have arrived, before the morning's look at the Payouts page.
INSERT INTO job_schedules (job, cron, timezone) VALUES ('fetch_payouts', '40 6 * * *', 'Europe/Paris')
ON CONFLICT (job) DO NOTHING;
