-- Holds renewed before their network lapses them (docs/holds.md).
--
-- Each hold's own end, on its ledger row: a renewed request has a chain of holds (placed,
-- expires, released), and the request's hold_expires_at is only the live one's. Filled when
-- the hold is placed, by the status change that records it. Live holds get theirs now.
ALTER TABLE money_ledger ADD COLUMN hold_expires_at timestamptz;
UPDATE money_ledger l SET hold_expires_at = p.hold_expires_at
  FROM payment_requests p
 WHERE l.payment_request_id = p.id AND l.kind = 'hold' AND l.state = 'succeeded'
   AND l.provider_transaction_id = p.provider_transaction_id AND p.hold_expires_at IS NOT NULL;

-- The renewal run reads only the holds that are live guarantees, by their end (then id: the
-- run's keyset).
CREATE INDEX payment_requests_renewals_due ON payment_requests (hold_expires_at, id)
  WHERE status = 'AUTHORISED_TO_VALIDATE' AND request_type = 'IMPRINT';

-- The run of each day, after the holds before arrival (07:00): 07:15, hotel time.
INSERT INTO job_schedules (job, cron, timezone) VALUES ('renew_holds', '15 7 * * *', 'Europe/Paris')
  ON CONFLICT (job) DO NOTHING;

-- The sandbox plays the networks: a hold lapses at its end (placed + its card's network window),
-- and its order view gives that end. `reason`: why a merchant-initiated hold was placed
-- ('reauthorisation' for a renewal). A job run for a given day (the test clock) stamps what it
-- makes with that day's scheduled moment, and the order lives on that clock from then on: its
-- holds lapse by it, not by the real time.
ALTER TABLE sandbox_transactions ADD COLUMN expires_at timestamptz, ADD COLUMN reason text;
CREATE TABLE sandbox_clocks (
  order_id uuid PRIMARY KEY,
  at timestamptz NOT NULL
);
-- A stored card's network, from its number when it was registered: its holds' window. A card
-- stored before has none and gets the shortest window (Visa's), as payreq assumes of it.
ALTER TABLE sandbox_tokens ADD COLUMN network text;

-- The holds still alive, by their end: where the renewal run finds the replaced ones to release.
CREATE INDEX money_ledger_live_holds ON money_ledger (hold_expires_at) WHERE kind = 'hold' AND state = 'succeeded';
-- A hold's renewal and its release name it as their parent.
CREATE INDEX IF NOT EXISTS money_ledger_parent ON money_ledger (parent_id) WHERE parent_id IS NOT NULL;
