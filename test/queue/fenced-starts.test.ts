import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { bulkJobKind } from '../../src/bulk-actions/index.ts';
import { jobStore, runClaimed } from '../../src/queue/index.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

/**
 * A worker whose lease was taken over writes nothing, not even its start: a bulk job's
 * "running" is written in the queue's fenced step, as its outcome is.
 */
describe(`the queue's fence covers a job's start (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test('a bulk job taken over before its stale worker starts: the stale worker writes nothing and moves no money', async () => {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount: 50 });
    await arrangeStatus(t.db, c.uuid, 'AUTHORISED_TO_VALIDATE');
    const batch = randomUUID();
    await t.repos.bulkJobs.enqueue({
      batchId: batch,
      action: 'release',
      username: 'root',
      userTenantId: null,
      ip: null,
      requests: [{ id: c.uuid, tenantId: t.tenant.tenantId, amount: null, currency: 'EUR' }],
    });
    const store = jobStore(t.db);
    const [queued] = (await t.db.query<{ id: string }>("SELECT id::text FROM jobs WHERE kind = 'bulk_job'")).rows;
    assert.ok(queued);
    const stale = await store.claimById('bulk_job', queued.id, { leaseMs: 60_000, owner: 'stalled' });
    assert.ok(stale);
    // Its lease passes and another worker claims it (a new fence), then itself stalls.
    await t.db.query("UPDATE jobs SET lease_until = now() - interval '1 second' WHERE id = $1::bigint", [queued.id]);
    const fresh = await store.claimById('bulk_job', queued.id, { leaseMs: 60_000, owner: 'fresh' });
    assert.ok(fresh);
    const kind = bulkJobKind(t.app.payreq);
    assert.equal(await runClaimed(t.db, kind, stale, new Date()), 'lease_lost');
    const untouched = await t.db.query<{ state: string; started: boolean }>(
      'SELECT state, started_at IS NOT NULL AS started FROM bulk_jobs WHERE batch_id = $1',
      [batch],
    );
    assert.deepEqual(untouched.rows, [{ state: 'queued', started: false }], 'not even marked running');
    assert.equal((await t.repos.paymentRequests.find(t.tenant.tenantId, c.uuid))?.status, 'AUTHORISED_TO_VALIDATE');
    // The worker that holds it runs it.
    assert.equal(await runClaimed(t.db, kind, fresh, new Date()), 'done');
    assert.equal((await t.repos.paymentRequests.find(t.tenant.tenantId, c.uuid))?.status, 'CANCELLED');
  });
});
