-- The back office's request list: text search over reference, reservation, guest name and
-- e-mail. pg_trgm (a contrib extension, shipped with PostgreSQL and with PGlite) indexes
-- substrings, so "%martin%" is answered from a GIN index instead of reading every row.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX payment_requests_search ON payment_requests USING gin (
  (lower(reference || ' ' || reservation_ref || ' ' || guest_first_name || ' ' || guest_last_name || ' ' || guest_email))
  gin_trgm_ops
);
-- The list across every tenant (a superuser), newest first.
CREATE INDEX payment_requests_created ON payment_requests (created_at DESC, id DESC);

-- Bulk actions: one row per selected request, each its own job, claimed with SKIP LOCKED so
-- several workers never take the same one. (batch_id, payment_request_id) is unique: a reload
-- or a second submit of the same batch does not queue the action twice.
CREATE TABLE bulk_jobs (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  batch_id uuid NOT NULL,
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  payment_request_id uuid NOT NULL,
  action text NOT NULL CHECK (action IN ('capture', 'release', 'refund')),
  username text NOT NULL,
  -- The user's tenant scope when queued: NULL for a superuser.
  user_tenant_id uuid,
  state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'done', 'refused', 'in_doubt', 'failed')),
  reason text,
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz,
  UNIQUE (batch_id, payment_request_id)
);
CREATE INDEX bulk_jobs_queued ON bulk_jobs (id) WHERE state = 'queued';
CREATE INDEX bulk_jobs_batch ON bulk_jobs (batch_id, id);
