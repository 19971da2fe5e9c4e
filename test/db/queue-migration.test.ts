import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { migrate } from '../../src/db/index.ts';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.ts';

/**
 * Migrations 0049 and 0050 on a database as the four hand-made queues left it: every piece of
 * pending work becomes a job, with its attempts, its due time and its lease; nothing finished
 * comes back.
 */
describe(`migrations 0049-0050: pending work moves into the one queue (${ENGINE})`, () => {
  let t: TestDatabase;
  before(async () => {
    t = await createTestDatabase();
  });
  after(() => t.drop());

  test('pending e-mails, bulk jobs, notifications and deliveries become jobs; finished ones do not', async () => {
    // The schema as 0048 left it: no queue, no triggers.
    for (const sql of [
      'DROP TABLE jobs',
      'DROP SEQUENCE job_fences',
      // jobs_notify is gone since 0151 (the queue without NOTIFY); 0049 makes it again here.
      'DROP FUNCTION IF EXISTS jobs_notify, jobs_follow_email_outbox, jobs_follow_bulk_jobs, jobs_follow_sandbox_notifications, jobs_follow_webhook_deliveries, jobs_forget_deleted CASCADE',
      "DELETE FROM schema_migrations WHERE name IN ('0049_one_queue.sql', '0050_webhook_queue.sql')",
    ])
      await t.db.query(sql);
    const tenant = randomUUID();
    const endpoint = randomUUID();
    await t.db.query(`INSERT INTO tenants (id, name) VALUES ($1, 'Hôtel Ancien')`, [tenant]);
    await t.db.query(
      `INSERT INTO webhook_endpoints (id, tenant_id, url, events, secret_sealed)
       VALUES ($1, $2, 'https://pms.example/hook', '{}', 'sealed')`,
      [endpoint, tenant],
    );
    const ids = async (sql: string, params: unknown[]) =>
      (await t.db.query<{ id: string }>(`${sql} RETURNING id::text AS id`, params)).rows.map((r) => r.id);
    const mail = await ids(
      `INSERT INTO email_outbox (tenant_id, kind, cause, status, attempts, next_attempt_at, last_error)
       VALUES ($1, 'daily_digest', 'a', 'pending', 2, '2030-01-01T00:00:00Z', 'busy'),
              ($1, 'daily_digest', 'b', 'sent', 1, now(), NULL),
              ($1, 'daily_digest', 'c', 'failed', 10, now(), 'refused')`,
      [tenant],
    );
    const bulk = await ids(
      `INSERT INTO bulk_jobs (batch_id, tenant_id, payment_request_id, action, username, state, attempts)
       VALUES ($1, $2, $3, 'capture', 'desk', 'queued', 0), ($1, $2, $4, 'capture', 'desk', 'running', 1),
              ($1, $2, $5, 'capture', 'desk', 'done', 1)`,
      [randomUUID(), tenant, randomUUID(), randomUUID(), randomUUID()],
    );
    const notes = await ids(
      `INSERT INTO sandbox_notifications (url, body, attempts, next_attempt_at, delivered_at)
       VALUES ('http://x/ipn', '{}', 3, '2030-01-02T00:00:00Z', NULL), ('http://x/ipn', '{}', 1, now(), now()),
              ('http://x/ipn', '{}', 12, now(), NULL)`,
      [],
    );
    const deliveries = await ids(
      `INSERT INTO webhook_deliveries (endpoint_id, event_id, payment_request_id, status, attempts, next_attempt_at,
                                       first_attempt_due, leased_until)
       VALUES ($1, 1, $2, 'pending', 4, '2030-01-03T00:00:00Z', '2029-12-31T00:00:00Z', now() + interval '1 minute'),
              ($1, 2, $2, 'delivered', 1, now(), now(), NULL)`,
      [endpoint, randomUUID()],
    );

    assert.deepEqual(await migrate(t.db), ['0049_one_queue.sql', '0050_webhook_queue.sql']);

    const jobs = await t.db.query<{
      kind: string;
      ref: string;
      lane: string | null;
      attempts: number;
      run_at: Date;
      first_due_at: Date;
      last_error: string | null;
      leased: boolean;
    }>(
      `SELECT kind, ref, lane, attempts, run_at, first_due_at, last_error, lease_until IS NOT NULL AS leased
         FROM jobs ORDER BY kind, ref::bigint`,
    );
    const seen = jobs.rows.map((j) => [j.kind, j.ref, j.attempts, j.leased]);
    assert.deepEqual(seen, [
      ['bulk_job', bulk[0], 0, false],
      ['bulk_job', bulk[1], 1, false],
      ['mail', mail[0], 2, false],
      ['sandbox_notification', notes[0], 3, false],
      ['webhook_delivery', deliveries[0], 4, true],
    ]);
    const byKind = new Map(jobs.rows.map((j) => [j.kind, j]));
    assert.equal(byKind.get('mail')?.run_at.toISOString(), '2030-01-01T00:00:00.000Z');
    assert.equal(byKind.get('mail')?.last_error, 'busy');
    assert.equal(byKind.get('sandbox_notification')?.run_at.toISOString(), '2030-01-02T00:00:00.000Z');
    const hook = byKind.get('webhook_delivery');
    assert.equal(hook?.run_at.toISOString(), '2030-01-03T00:00:00.000Z');
    assert.equal(hook?.first_due_at.toISOString(), '2029-12-31T00:00:00.000Z', 'its 3-day window kept');
    assert.equal(hook?.lane, endpoint);

    // From now on, the tables enqueue by themselves: a row queued again has its job back.
    await t.db.query("UPDATE email_outbox SET status = 'pending', next_attempt_at = now() WHERE cause = 'c'");
    const back = await t.db.query("SELECT 1 FROM jobs WHERE kind = 'mail' AND ref = $1", [mail[2]]);
    assert.equal(back.rows.length, 1);
  });
});
