import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { Database } from '../../src/db/index.ts';
import {
  afterFailure,
  type ClaimedJob,
  type JobKind,
  jobStore,
  LeaseLostError,
  retryDelayMs,
  runDueJobs,
  startQueueWorker,
} from '../../src/queue/index.ts';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.ts';

/** Resolves once `check` holds (no fixed sleep decides the outcome). */
async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const policy = { baseMs: 1000, maxMs: 8000, maxAttempts: 3, leaseMs: 60_000 };

/** A kind whose `run` is the test's; the jobs are written straight into the queue. */
function kind(
  name: JobKind['name'],
  run: JobKind['run'],
  over: Partial<Pick<JobKind, 'concurrency' | 'policy'>> = {},
): JobKind {
  return { name, policy, concurrency: 4, run, ...over };
}

describe('the retry policy', () => {
  test('doubles from the base, capped', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5].map((n) => retryDelayMs(policy, n)),
      [1000, 2000, 4000, 8000, 8000],
    );
  });

  test('gives up after maxAttempts, or once first due giveUpAfterMs ago', () => {
    const now = new Date('2026-01-01T12:00:00Z');
    const job = (attempts: number, ageMs = 0) => ({ attempts, first_due_at: new Date(now.getTime() - ageMs) });
    assert.deepEqual(afterFailure(policy, job(2), now), { final: false, runAt: new Date(now.getTime() + 2000) });
    assert.equal(afterFailure(policy, job(3), now).final, true);
    const timed = { baseMs: 1000, maxMs: 8000, giveUpAfterMs: 3600_000, leaseMs: 1000 };
    assert.equal(afterFailure(timed, job(50, 3599_000), now).final, false);
    assert.equal(afterFailure(timed, job(1, 3600_000), now).final, true);
  });
});

describe(`the queue: claim, lease, fence, worker (${ENGINE})`, () => {
  let t: TestDatabase;
  let db: Database;
  before(async () => {
    t = await createTestDatabase();
    db = t.db;
  });
  after(() => t.drop());
  beforeEach(() => db.query('DELETE FROM jobs'));

  const enqueue = async (kindName: string, ref: string, runAt?: Date) => {
    await db.query('INSERT INTO jobs (kind, ref, run_at) VALUES ($1, $2, coalesce($3::timestamptz, now()))', [
      kindName,
      ref,
      runAt ?? null,
    ]);
  };
  const jobRow = async (ref: string) =>
    (
      await db.query<{ attempts: number; run_at: Date; last_error: string | null; lease_until: Date | null }>(
        'SELECT attempts, run_at, last_error, lease_until FROM jobs WHERE ref = $1',
        [ref],
      )
    ).rows[0];

  test('claimers running at once never take the same job; a job not yet due is not taken', async () => {
    for (let i = 0; i < 30; i++) await enqueue('mail', `m${i}`);
    await enqueue('mail', 'later', new Date(Date.now() + 3600_000));
    const store = jobStore(db);
    const claims = await Promise.all(
      [1, 2, 3, 4, 5].map((n) => store.claim('mail', { limit: 8, leaseMs: 60_000, owner: `w${n}` })),
    );
    const refs = claims.flat().map((j) => j.ref);
    assert.equal(refs.length, 30);
    assert.equal(new Set(refs).size, 30);
    assert.ok(!refs.includes('later'));
    // Leased: nobody takes them again while the lease lasts.
    assert.deepEqual(await store.claim('mail', { limit: 50, leaseMs: 60_000, owner: 'w6' }), []);
  });

  test('a worker whose lease ran out and was taken over can neither finish nor fail the job', async () => {
    await enqueue('bulk_job', 'b1');
    const store = jobStore(db);
    const t0 = new Date(Date.now() + 1000);
    const [stale] = await store.claim('bulk_job', { limit: 1, leaseMs: 1000, owner: 'slow', now: t0 });
    assert.ok(stale);
    // Still leased a moment later; taken over once the lease has run out.
    assert.deepEqual(
      await store.claim('bulk_job', { limit: 1, leaseMs: 1000, owner: 'new', now: new Date(t0.getTime() + 999) }),
      [],
    );
    const [fresh] = await store.claim('bulk_job', {
      limit: 1,
      leaseMs: 1000,
      owner: 'new',
      now: new Date(t0.getTime() + 1000),
    });
    assert.ok(fresh);
    assert.equal(fresh.attempts, 2);
    let recorded = false;
    const record = async () => {
      recorded = true;
    };
    await assert.rejects(store.finish(stale, record), LeaseLostError);
    await assert.rejects(store.retry(stale, new Date(), 'late', record), LeaseLostError);
    await assert.rejects(store.postpone(stale, new Date(), record), LeaseLostError);
    assert.equal(recorded, false, 'the stale worker wrote nothing to the domain row');
    assert.equal((await jobRow('b1'))?.attempts, 2);
    await store.finish(fresh, record);
    assert.equal(recorded, true);
    assert.equal(await jobRow('b1'), undefined);
  });

  const serverOnly = { skip: ENGINE !== 'postgres' && 'PostgreSQL only: PGlite has one connection' };
  test('a domain row deleted while a worker finishes its job: neither waits for the other', serverOnly, async () => {
    const tenant = (
      await db.query<{ id: string }>(
        "INSERT INTO tenants (id, name) VALUES (gen_random_uuid(), 'Q') RETURNING id::text",
      )
    ).rows[0]?.id;
    const outbox = (
      await db.query<{ id: string }>(
        "INSERT INTO email_outbox (tenant_id, kind, cause) VALUES ($1, 'daily_digest', 'q-del') RETURNING id::text",
        [tenant],
      )
    ).rows[0]?.id as string;
    const store = jobStore(db);
    const [job] = await store.claim('mail', { limit: 1, leaseMs: 60_000, owner: 'w' });
    assert.equal(job?.ref, outbox);
    let deleted = false;
    // The worker holds its job (the fenced change) when the row is deleted elsewhere; then it
    // writes the row. Were the deletion to wait for the job, each would wait for the other.
    await store.retry(job as ClaimedJob, new Date(), 'busy', async (tx) => {
      await db.query('DELETE FROM email_outbox WHERE id = $1::bigint', [outbox]);
      deleted = true;
      await tx.query("UPDATE email_outbox SET last_error = 'busy' WHERE id = $1::bigint", [outbox]);
    });
    assert.ok(deleted);
    // The job it left behind finds nothing to do.
    const gone = kind('mail', async (_job, finish) => {
      await finish.done();
      return 'gone';
    });
    assert.deepEqual(await runDueJobs(db, gone, { now: new Date(Date.now() + 1000) }), ['gone']);
    assert.equal(await jobRow(outbox), undefined);
  });

  test('a record that throws undoes the finish: the job stays leased, as it was', async () => {
    await enqueue('bulk_job', 'b2');
    const store = jobStore(db);
    const [job] = (await store.claim('bulk_job', { limit: 1, leaseMs: 60_000, owner: 'w' })) as ClaimedJob[];
    await assert.rejects(
      store.finish(job as ClaimedJob, async (tx) => {
        await tx.query('SELECT 1');
        throw new Error('domain write failed');
      }),
      /domain write failed/,
    );
    assert.ok((await jobRow('b2'))?.lease_until, 'still there, still leased');
  });

  test("a handler's throw is a failed attempt: retried after the kind's back-off, given up after maxAttempts", async () => {
    await enqueue('bulk_job', 'b3');
    const boom = kind('bulk_job', async () => {
      throw new Error('boom');
    });
    // A moment ahead: the job is due by then whatever the two clocks' last digits.
    const start = new Date(Date.now() + 1000);
    assert.deepEqual(await runDueJobs(db, boom, { now: start }), ['failed']);
    const first = await jobRow('b3');
    assert.equal(first?.attempts, 1);
    assert.equal(first?.last_error, 'boom');
    assert.equal(first?.run_at.getTime(), start.getTime() + 1000);
    assert.deepEqual(await runDueJobs(db, boom, { now: new Date(start.getTime() + 999) }), []);
    assert.deepEqual(await runDueJobs(db, boom, { now: new Date(start.getTime() + 1000) }), ['failed']);
    assert.equal((await jobRow('b3'))?.run_at.getTime(), start.getTime() + 1000 + 2000);
    assert.deepEqual(await runDueJobs(db, boom, { now: new Date(start.getTime() + 3600_000) }), ['failed']);
    assert.equal(await jobRow('b3'), undefined, 'given up after 3 attempts');
  });

  test('postponed: due again at the time given, the attempt not counted', async () => {
    await enqueue('mail', 'p1');
    const at = new Date(Date.now() + 3600_000);
    const later = kind('mail', async (_job, finish) => {
      await finish.postpone(at);
      return 'postponed';
    });
    assert.deepEqual(await runDueJobs(db, later), ['postponed']);
    const row = await jobRow('p1');
    assert.equal(row?.attempts, 0);
    assert.equal(row?.run_at.getTime(), at.getTime());
    assert.equal(row?.lease_until, null);
  });

  test('the worker runs work queued after it started: at once when this process wakes it', async () => {
    const ran: string[] = [];
    const k = kind('sandbox_notification', async (job, finish) => {
      ran.push(job.ref);
      await finish.done();
      return 'done';
    });
    // The poll is a minute away: only the wake of the writer in this process runs it in time.
    const worker = startQueueWorker({ db, kinds: [k], pollMs: 60_000 });
    try {
      await enqueue('sandbox_notification', 'n1');
      worker.wake();
      await until(() => ran.includes('n1'), 'n1 to run', 3000);
      // A job due in a moment is run then, by the worker's own timer (not a poll a minute away).
      await enqueue('sandbox_notification', 'n2', new Date(Date.now() + 300));
      worker.wake();
      await until(() => ran.includes('n2'), 'n2 to run', 3000);
      assert.deepEqual(ran, ['n1', 'n2']);
    } finally {
      await worker.stop();
    }
  });

  test('work queued by another process, with no wake, is seen at the next poll', async () => {
    const ran: string[] = [];
    const k = kind('sandbox_notification', async (job, finish) => {
      ran.push(job.ref);
      await finish.done();
      return 'done';
    });
    const worker = startQueueWorker({ db, kinds: [k], pollMs: 200 });
    try {
      // A first job run, so the worker has looked and gone back to sleep before the next one.
      await enqueue('sandbox_notification', 'first');
      worker.wake();
      await until(() => ran.includes('first'), 'the first job to run', 3000);
      await enqueue('sandbox_notification', 'elsewhere');
      await until(() => ran.includes('elsewhere'), 'the job to run', 3000);
    } finally {
      await worker.stop();
    }
  });

  test('queueing a job sends no NOTIFY (PostgreSQL would run such commits one at a time)', async () => {
    const r = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
        WHERE t.tgrelid = 'jobs'::regclass AND NOT t.tgisinternal AND p.prosrc ILIKE '%notify%'`,
    );
    assert.equal(r.rows[0]?.n, 0);
  });

  test('due jobs a kind may not take now (its lanes are full) are looked at again later, not in a spin', async () => {
    let looks = 0;
    const held = kind('webhook_delivery', async (_job, finish) => {
      await finish.done();
      return 'done';
    });
    const narrowed: JobKind = {
      ...held,
      narrow: async () => {
        looks++;
        return [];
      },
    };
    await enqueue('webhook_delivery', 'held-1');
    const worker = startQueueWorker({ db, kinds: [narrowed], pollMs: 60_000 });
    try {
      await until(() => looks >= 1, 'the first look');
      const at = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(looks, 1, `looked ${looks} times in ${Date.now() - at} ms`);
    } finally {
      await worker.stop();
    }
  });

  test("a kind whose jobs hang fills its own slots only: another kind's jobs still run", async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let hanging = 0;
    const slow = kind(
      'webhook_delivery',
      async (_job, finish) => {
        hanging++;
        await held;
        await finish.done();
        return 'done';
      },
      { concurrency: 2 },
    );
    const ran: string[] = [];
    const fast = kind('mail', async (job, finish) => {
      ran.push(job.ref);
      await finish.done();
      return 'done';
    });
    for (let i = 0; i < 5; i++) await enqueue('webhook_delivery', `w${i}`);
    const worker = startQueueWorker({ db, kinds: [slow, fast], pollMs: 50 });
    try {
      await until(() => hanging === 2, 'both slow slots taken');
      for (let i = 0; i < 3; i++) await enqueue('mail', `m${i}`);
      worker.wake();
      await until(() => ran.length === 3, 'the mail to run');
      assert.equal(hanging, 2, 'the slow kind never takes more than its slots');
      release();
      await until(async () => (await db.query('SELECT 1 FROM jobs')).rows.length === 0, 'the slow jobs to end');
      assert.equal(hanging, 5);
    } finally {
      release();
      await worker.stop();
    }
  });
});
