import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runBulkJobs } from '../../src/bulk-actions/index.js';
import { arrangeStatus } from '../helpers/fixtures.js';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.js';
import { ControlClient, createUser } from './control-client.js';

describe(`back office bulk actions (${ENGINE})`, { timeout: 120_000 }, () => {
  let t: TestApp;
  let c: ControlClient;
  before(async () => {
    t = await startTestApp();
    await createUser(t, 'night', t.tenant.tenantId);
    c = await new ControlClient(t).signedIn('night');
  });
  after(() => t.close());

  const status = async (id: string) =>
    ((await t.call({ method: 'GET', url: `/api/payment-requests/${id}/` })).json() as { status: string }).status;

  async function hold(amount: number) {
    const r = await createRequest(t, { request_type: 'IMPRINT', amount, guest_last_name: 'Bulk' });
    await arrangeStatus(t.db, r.uuid, 'AUTHORISED_TO_VALIDATE');
    return r;
  }

  test('capture selected: two holds captured, one not capturable reported refused with its reason', async () => {
    const a = await hold(100);
    const b = await hold(150);
    const notHeld = await createRequest(t, { request_type: 'IMPRINT', amount: 70, guest_last_name: 'Bulk' });
    const list = await c.get('/control/requests?q=bulk');
    const batch = /name="batch" value="([^"]+)"/.exec(list.body)?.[1] ?? '';
    const ids = [a.uuid, notHeld.uuid, b.uuid];
    const sent = await c.post('/control/bulk', { batch, action: 'capture', ids });
    assert.equal(sent.statusCode, 303);
    const progressUrl = String(sent.headers.location);
    const queuedPage = await c.get(progressUrl);
    assert.match(queuedPage.body, /<meta http-equiv="refresh" content="2">/, 'reloads itself while pending');
    assert.equal([...queuedPage.body.matchAll(/data-state="queued"/g)].length, 3);

    // The same form again (a double click, a reload): the batch is not queued twice.
    await c.post('/control/bulk', { batch, action: 'capture', ids, _csrf: c.csrf });
    assert.equal(await runBulkJobs(t.app.payreq, 10), 3);
    assert.equal(await runBulkJobs(t.app.payreq, 10), 0);

    assert.equal(await status(a.uuid), 'CAPTURED');
    assert.equal(await status(b.uuid), 'CAPTURED');
    assert.equal(await status(notHeld.uuid), 'NOT_INITIATED');
    const done = await c.get(progressUrl);
    assert.doesNotMatch(done.body, /http-equiv="refresh"/);
    const states = [
      ...done.body.matchAll(
        />((?:IMP|DEP)-[\d-]+)<\/a><\/td><td>capture<\/td>\s*<td><span class="status (\w+)"[^<]*<\/span><\/td><td>([^<]*)</g,
      ),
    ].map((m) => [m[1], m[2], m[3]]);
    assert.deepEqual(states, [
      [a.reference, 'done', ''],
      [
        notHeld.reference,
        'refused',
        'Cannot capture a payment request in status NOT_INITIATED (allowed: AUTHORISED_TO_VALIDATE)',
      ],
      [b.reference, 'done', ''],
    ]);
    const audit = await t.repos.audit.list({ action: 'bulk_capture', limit: 10 });
    assert.deepEqual(audit.map((x) => x.outcome).sort(), ['ok', 'ok', 'refused']);
  });

  /** A worker that died after its moves, before recording them: the batch's jobs left running, their lease run out. */
  async function workerDied(batch: string) {
    await t.db.query(
      `UPDATE bulk_jobs SET state = 'running', reason = NULL, finished_at = NULL,
              started_at = now() - interval '1 hour' WHERE batch_id = $1`,
      [batch],
    );
  }
  const jobStates = async (batch: string) =>
    (await t.repos.bulkJobs.batch(batch, undefined)).map((j) => `${j.reference}:${j.state}:${j.reason ?? ''}`);

  test('run again after its worker died, a job reports its own capture and refund done; a capture by someone else stays refused', async () => {
    const mine = await hold(40);
    const theirs = await hold(50);
    const captureBatch = '0b5c8f9e-3333-4333-8333-333333333333';
    await c.get('/control/requests');
    await c.post('/control/bulk', { batch: captureBatch, action: 'capture', ids: [mine.uuid] });
    assert.equal(await runBulkJobs(t.app.payreq, 10), 1);
    assert.equal(await status(mine.uuid), 'CAPTURED');
    await workerDied(captureBatch);
    assert.equal(await runBulkJobs(t.app.payreq, 10), 1, 'the job came back once its lease ran out');
    assert.deepEqual(await jobStates(captureBatch), [`${mine.reference}:done:`]);

    const refundBatch = '0b5c8f9e-4444-4444-8444-444444444444';
    await c.get('/control/requests');
    await c.post('/control/bulk', { batch: refundBatch, action: 'refund', ids: [mine.uuid] });
    assert.equal(await runBulkJobs(t.app.payreq, 10), 1);
    await workerDied(refundBatch);
    assert.equal(await runBulkJobs(t.app.payreq, 10), 1);
    assert.deepEqual(await jobStates(refundBatch), [`${mine.reference}:done:`]);
    assert.equal(await status(mine.uuid), 'REFUNDED');

    // Captured through the API before the bulk job ran: not the job's move, refused as before.
    const otherBatch = '0b5c8f9e-5555-4555-8555-555555555555';
    await c.get('/control/requests');
    await c.post('/control/bulk', { batch: otherBatch, action: 'capture', ids: [theirs.uuid] });
    assert.equal(
      (await t.call({ method: 'POST', url: `/api/payment-requests/${theirs.uuid}/capture/` })).statusCode,
      200,
    );
    assert.equal(await runBulkJobs(t.app.payreq, 10), 1);
    assert.deepEqual(await jobStates(otherBatch), [
      `${theirs.reference}:refused:Cannot capture a payment request in status CAPTURED (allowed: AUTHORISED_TO_VALIDATE)`,
    ]);
  });

  test("another tenant's request in the selection: 404, nothing queued", async () => {
    const other = await t.newTenant('Elsewhere');
    const theirs = await createRequest(t, { request_type: 'IMPRINT', amount: 10 }, other);
    await arrangeStatus(t.db, theirs.uuid, 'AUTHORISED_TO_VALIDATE');
    const mine = await hold(20);
    await c.get('/control/requests');
    const batch = '0b5c8f9e-2222-4222-8222-222222222222';
    const r = await c.post('/control/bulk', { batch, action: 'release', ids: [mine.uuid, theirs.uuid] });
    assert.equal(r.statusCode, 404);
    assert.equal((await t.repos.bulkJobs.batch(batch, undefined)).length, 0);
    assert.equal(await runBulkJobs(t.app.payreq, 10), 0);
    assert.equal(await status(mine.uuid), 'AUTHORISED_TO_VALIDATE');
  });
});
