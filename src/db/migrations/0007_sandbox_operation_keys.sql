-- The sandbox takes an idempotency key on every money operation, as real providers do: the same
-- key twice is the same operation, done once (the primary key is the guard), and its view of an
-- order names the keys that made or moved each transaction, so an operation whose answer was
-- lost can be found again.
CREATE TABLE sandbox_operations (
  key text PRIMARY KEY,
  order_id uuid NOT NULL,
  operation text NOT NULL CHECK (operation IN ('hold', 'capture', 'release', 'refund', 'void')),
  -- The transaction the operation moved (capture, release, void) or created (hold, refund).
  transaction_id text NOT NULL,
  amount integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sandbox_operations_order ON sandbox_operations (order_id);
