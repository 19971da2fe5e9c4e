import type { Queryable } from './database.ts';

export type BulkAction = 'capture' | 'release' | 'refund';
export type BulkState = 'queued' | 'running' | 'done' | 'refused' | 'in_doubt' | 'failed';

export interface BulkJobRow {
  id: string;
  batch_id: string;
  tenant_id: string;
  payment_request_id: string;
  action: BulkAction;
  username: string;
  user_tenant_id: string | null;
  state: BulkState;
  reason: string | null;
  reference: string | null;
  /** The amount the user confirmed (minor units); null for a release. */
  amount: number | null;
  currency: string | null;
  /** The address the user confirmed from. */
  ip: string | null;
  /** The error code of a refusal (invalid_status, provider_refused, ...). */
  reason_code: string | null;
  /** Why the user moved the money (the capture and refund reasons' list) and the note; null: none given. */
  move_reason: string | null;
  move_note: string | null;
}

const COLUMNS = `j.id::text AS id, j.batch_id, j.tenant_id, j.payment_request_id, j.action, j.username, j.user_tenant_id,
  j.state, j.reason, j.amount, j.currency, j.ip, j.reason_code, j.move_reason, j.move_note`;

export function bulkJobsRepository(db: Queryable) {
  return {
    /**
     * Queues one job per request of the batch. The batch id comes from the form: the same
     * form submitted twice, or reloaded, queues nothing more (unique batch, request).
     */
    async enqueue(b: {
      batchId: string;
      action: BulkAction;
      username: string;
      userTenantId: string | null;
      ip: string | null;
      /** The reason and note the user gave for the whole batch (a capture or refund), if any. */
      why?: { reason: string | null; note: string | null };
      /** Each with the amount the user confirmed (null for a release). */
      requests: readonly { id: string; tenantId: string; amount: number | null; currency: string }[];
    }): Promise<number> {
      if (b.requests.length === 0) return 0;
      const r = await db.query(
        `INSERT INTO bulk_jobs (batch_id, tenant_id, payment_request_id, action, username, user_tenant_id, amount, currency, ip,
                                move_reason, move_note)
         SELECT $1, x.tenant_id, x.id, $2, $3, $4, x.amount, x.currency, $9, $10, $11
           FROM unnest($5::uuid[], $6::uuid[], $7::int[], $8::text[]) AS x (id, tenant_id, amount, currency)
         ON CONFLICT (batch_id, payment_request_id) DO NOTHING`,
        [
          b.batchId,
          b.action,
          b.username,
          b.userTenantId,
          b.requests.map((x) => x.id),
          b.requests.map((x) => x.tenantId),
          b.requests.map((x) => x.amount),
          b.requests.map((x) => x.currency),
          b.ip,
          b.why?.reason ?? null,
          b.why?.note ?? null,
        ],
      );
      return r.rowCount ?? 0;
    },

    /**
     * The job the queue gave this instance (src/queue/), still to run: queued, or running with
     * its earlier worker gone (the queue's lease ran out). Undefined once finished.
     */
    async load(id: string): Promise<BulkJobRow | undefined> {
      const r = await db.query<BulkJobRow>(
        `SELECT ${COLUMNS}, NULL::text AS reference FROM bulk_jobs j
          WHERE j.id = $1::bigint AND j.state IN ('queued', 'running')`,
        [id],
      );
      return r.rows[0];
    },

    /** Running, at its `attempts`-th try (the queue counts them), for the batch page. */
    async start(id: string, attempts: number): Promise<void> {
      await db.query(
        `UPDATE bulk_jobs SET state = 'running', started_at = now(), attempts = $2
          WHERE id = $1::bigint AND state IN ('queued', 'running')`,
        [id, attempts],
      );
    },

    async finish(
      id: string,
      state: Exclude<BulkState, 'queued' | 'running'>,
      reason: string | null,
      reasonCode: string | null = null,
    ): Promise<void> {
      await db.query(
        `UPDATE bulk_jobs SET state = $2, reason = $3, reason_code = $4, finished_at = now() WHERE id = $1::bigint`,
        [id, state, reason, reasonCode],
      );
    },

    /** A batch as its owner sees it (scope: the user's tenant, or every one for a superuser). */
    async batch(batchId: string, tenantId: string | undefined): Promise<BulkJobRow[]> {
      const r = await db.query<BulkJobRow>(
        `SELECT ${COLUMNS}, p.reference FROM bulk_jobs j LEFT JOIN payment_requests p ON p.id = j.payment_request_id
          WHERE j.batch_id = $1 AND ($2::uuid IS NULL OR j.tenant_id = $2) ORDER BY j.id`,
        [batchId, tenantId ?? null],
      );
      return r.rows;
    },
  };
}
export type BulkJobsRepository = ReturnType<typeof bulkJobsRepository>;
