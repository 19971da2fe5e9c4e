import type { Database, Queryable } from '../db/index.ts';
import { LeaseLostError } from './errors.ts';

/**
 * The scheduled jobs (src/jobs/): each is a kind of its own, one job per day it runs for, so
 * two runs of one job and day exclude each other whoever started them.
 */
export type ScheduledJobName =
  | 'create_deferred_payments'
  | 'renew_holds'
  | 'expire_payment_requests'
  | 'purge_events'
  | 'reconcile_claims'
  | 'books_check'
  | 'send_payment_reminders'
  | 'send_daily_digests'
  | 'purge_idempotency_keys'
  | 'analyze_tables'
  | 'purge_admin_sessions'
  | 'fetch_payouts';

/** The kinds of background work; one more is one more name here and one kind definition. */
export type JobKindName = 'mail' | 'webhook_delivery' | 'bulk_job' | 'sandbox_notification' | 'pms' | ScheduledJobName;

/** A job this worker holds the lease on; `fence` is what lets it finish the job. */
export interface ClaimedJob {
  id: string;
  kind: JobKindName;
  /** The domain row it is for (email_outbox.id, bulk_jobs.id, ...). */
  ref: string;
  payload: unknown;
  /** Counting the attempt this claim starts. */
  attempts: number;
  fence: string;
  first_due_at: Date;
}

/** Writes the domain row's side of an outcome, in the transaction that finishes the job. */
export type RecordOutcome = (tx: Queryable) => Promise<void>;

export interface ClaimOptions {
  limit: number;
  leaseMs: number;
  /** Who holds the lease (host, process): for whoever looks at a stuck job. */
  owner: string;
  /** The clock; the database's own when unset (tests drive it). */
  now?: Date;
}

/**
 * A kind's own rule of which due jobs it may take now (webhooks: a few per endpoint, none of
 * an endpoint backing off): the ids, at most `limit`, best first. Runs under the kind's claim
 * lock, in the claim's transaction.
 */
export type Narrow = (tx: Queryable, o: { limit: number; now?: Date }) => Promise<string[]>;

// Any constant shared by every instance; with the kind, it names the lock a kind's claims
// take turns under when the kind narrows them.
const CLAIM_LOCK = 727_038;

const CLAIMED = `j.id::text AS id, j.kind, j.ref, j.payload, j.attempts, j.fence::text AS fence, j.first_due_at`;

/**
 * The one claim rule: due (run_at passed) and not leased (or the lease ran out), oldest due
 * first; SKIP LOCKED spares concurrent claimers the wait, and the conditions re-checked in the
 * UPDATE keep them from taking a job another just took. Each claim counts an attempt and draws
 * a new fence token. `ids`: only among these (a kind's narrowing).
 */
async function claimDue(q: Queryable, kind: JobKindName, o: ClaimOptions, ids: string[] | null): Promise<ClaimedJob[]> {
  const r = await q.query<ClaimedJob>(
    `WITH clock AS (SELECT coalesce($5::timestamptz, now()) AS t),
     due AS (
       SELECT j.id FROM jobs j, clock
        WHERE j.kind = $1 AND j.run_at <= clock.t AND (j.lease_until IS NULL OR j.lease_until <= clock.t)
          AND ($6::bigint[] IS NULL OR j.id = ANY ($6::bigint[]))
        ORDER BY j.run_at, j.id LIMIT $2
        FOR UPDATE OF j SKIP LOCKED
     )
     UPDATE jobs j
        SET attempts = j.attempts + 1, fence = nextval('job_fences'), lease_owner = $3,
            lease_until = clock.t + make_interval(secs => $4::double precision / 1000)
       FROM due, clock
      WHERE j.id = due.id AND j.run_at <= clock.t AND (j.lease_until IS NULL OR j.lease_until <= clock.t)
     RETURNING ${CLAIMED}`,
    [kind, o.limit, o.owner, o.leaseMs, o.now ?? null, ids],
  );
  return r.rows;
}

/**
 * The queue's SQL: one claim rule for every kind, and finishes fenced by the claim's token.
 * A finish runs in one transaction with the domain row's record, so a worker that lost its
 * lease changes neither the job nor the domain row (LeaseLostError).
 */
export function jobStore(db: Database) {
  /** Runs the fenced statement, then the record, in one transaction. */
  async function fenced(job: ClaimedJob, sql: string, params: unknown[], record?: RecordOutcome): Promise<void> {
    await db.transaction(async (tx) => {
      const r = await tx.query(sql, [job.id, job.fence, ...params]);
      if (r.rowCount === 0) throw new LeaseLostError(job.id);
      if (record) await record(tx);
    });
  }

  return {
    /** Takes up to `limit` due jobs of `kind` (see claimDue), among those `narrow` allows. */
    async claim(kind: JobKindName, o: ClaimOptions, narrow?: Narrow): Promise<ClaimedJob[]> {
      if (!narrow) return claimDue(db, kind, o, null);
      // A kind with lanes counts the leases of every instance: their claims take turns.
      return db.transaction(async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [CLAIM_LOCK, kind]);
        const ids = await narrow(tx, { limit: o.limit, now: o.now });
        return ids.length === 0 ? [] : claimDue(tx, kind, o, ids);
      });
    },

    /**
     * Queues a job for a domain row, unless one is queued for it already (the unique kind and
     * ref: one live job per row). Answers the new job's id, or undefined when it was there.
     */
    async enqueue(kind: JobKindName, ref: string, payload: unknown, q: Queryable = db): Promise<string | undefined> {
      const r = await q.query<{ id: string }>(
        `INSERT INTO jobs (kind, ref, payload) VALUES ($1, $2, $3::jsonb)
         ON CONFLICT (kind, ref) DO NOTHING RETURNING id::text AS id`,
        [kind, ref, JSON.stringify(payload)],
      );
      return r.rows[0]?.id;
    },

    /** Takes one job by its id, if it is due and not leased (see claimDue). */
    async claimById(kind: JobKindName, id: string, o: Omit<ClaimOptions, 'limit'>): Promise<ClaimedJob | undefined> {
      return (await claimDue(db, kind, { ...o, limit: 1 }, [id]))[0];
    },

    /** Whether a job is still queued (or running): gone once done or given up. */
    async live(id: string): Promise<boolean> {
      const r = await db.query('SELECT 1 FROM jobs WHERE id = $1::bigint', [id]);
      return r.rows.length > 0;
    },

    /**
     * Still at work: the lease runs `leaseMs` from now, and `record` is written with it, fenced
     * like a finish (a worker whose lease was taken over gets LeaseLostError, writes nothing).
     */
    extend(job: ClaimedJob, leaseMs: number, record?: RecordOutcome): Promise<void> {
      return fenced(
        job,
        `UPDATE jobs SET lease_until = now() + make_interval(secs => $3::double precision / 1000)
          WHERE id = $1::bigint AND fence = $2::bigint`,
        [leaseMs],
        record,
      );
    },

    /** The job of a domain row, as its creator holds it (a first attempt made inline). */
    async find(kind: JobKindName, ref: string): Promise<ClaimedJob | undefined> {
      const r = await db.query<ClaimedJob>(`SELECT ${CLAIMED} FROM jobs j WHERE j.kind = $1 AND j.ref = $2`, [
        kind,
        ref,
      ]);
      return r.rows[0];
    },

    /** Done, or given up: the job leaves the queue; the domain row says which. */
    finish(job: ClaimedJob, record?: RecordOutcome): Promise<void> {
      return fenced(job, 'DELETE FROM jobs WHERE id = $1::bigint AND fence = $2::bigint', [], record);
    },

    /** A failed attempt, tried again from `runAt`. */
    retry(job: ClaimedJob, runAt: Date, error: string, record?: RecordOutcome): Promise<void> {
      return fenced(
        job,
        `UPDATE jobs SET run_at = $3::timestamptz, last_error = $4, lease_owner = NULL, lease_until = NULL
          WHERE id = $1::bigint AND fence = $2::bigint`,
        [runAt, error.slice(0, 1000)],
        record,
      );
    },

    /** Not attempted after all (nowhere to send it yet, no time left): due at `runAt`, the attempt not counted. */
    postpone(job: ClaimedJob, runAt: Date, record?: RecordOutcome): Promise<void> {
      return fenced(
        job,
        `UPDATE jobs SET run_at = $3::timestamptz, attempts = greatest(attempts - 1, 0),
                lease_owner = NULL, lease_until = NULL
          WHERE id = $1::bigint AND fence = $2::bigint`,
        [runAt],
        record,
      );
    },

    /**
     * For each of these kinds with jobs queued, how long until the next may be claimed (due,
     * and its lease over), by the database's clock: 0 or less when one is due already.
     */
    async msUntilNextDue(kinds: readonly string[]): Promise<Map<string, number>> {
      if (kinds.length === 0) return new Map();
      const r = await db.query<{ kind: string; ms: number }>(
        `SELECT kind, (EXTRACT(EPOCH FROM min(greatest(run_at, coalesce(lease_until, run_at))) - now()) * 1000)::float8 AS ms
           FROM jobs WHERE kind = ANY($1::text[]) GROUP BY kind`,
        [kinds],
      );
      return new Map(r.rows.map((row) => [row.kind, row.ms]));
    },
  };
}
export type JobStore = ReturnType<typeof jobStore>;
