import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runBulkJobs } from '../../src/bulk-actions/index.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { ControlClient, createUser, withoutLabels } from './control-client.ts';

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

  /** The hidden fields of a page's form, as a browser would send them back. */
  function hiddenFields(body: string): Record<string, string | string[]> {
    const out: Record<string, string | string[]> = {};
    for (const m of body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
      const [name, value] = [m[1] as string, m[2] as string];
      if (name === '_csrf') continue;
      const had = out[name];
      out[name] = had === undefined ? value : [...(Array.isArray(had) ? had : [had]), value];
    }
    return out;
  }
  /** The list's bulk form, then its confirmation as shown: the confirmation page and the answer. */
  async function bulkConfirmed(
    batch: string,
    action: string,
    ids: string[],
    change = (f: Record<string, string | string[]>) => f,
  ) {
    const confirm = await c.post('/control/bulk', { batch, action, ids });
    assert.equal(confirm.statusCode, 200, confirm.body);
    const sent = await c.post('/control/bulk', change(hiddenFields(confirm.body)));
    return { confirm, sent };
  }

  test('capture selected: a confirmation with each amount and the total first, nothing queued until confirmed', async () => {
    const a = await hold(100);
    const b = await hold(150.5);
    const notHeld = await createRequest(t, { request_type: 'IMPRINT', amount: 70, guest_last_name: 'Bulk' });
    const list = await c.get('/control/requests?q=bulk');
    const batch = /name="batch" value="([^"]+)"/.exec(list.body)?.[1] ?? '';
    assert.match(
      list.body,
      /<button type="submit" name="action" value="capture" class="secondary">/,
      'never the primary style',
    );
    const ids = [a.uuid, notHeld.uuid, b.uuid];

    const confirm = await c.post('/control/bulk', { batch, action: 'capture', ids });
    assert.equal(confirm.statusCode, 200, confirm.body);
    assert.equal((await t.repos.bulkJobs.batch(batch, undefined)).length, 0, 'nothing queued before the confirmation');
    const row = (ref: string) =>
      [...confirm.body.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].find((m) => m[1]?.includes(ref))?.[1] ?? '';
    assert.match(row(a.reference), /€100\.00/);
    assert.match(row(b.reference), /€150\.50/);
    assert.match(row(notHeld.reference), /Left out: not possible in status/);
    assert.match(confirm.body, /Total:<\/strong> two hundred and fifty euros and fifty cents \(€250\.50\)/);
    assert.match(confirm.body, /<button type="submit" class="danger">Capture these amounts<\/button>/);

    const sent = await c.post('/control/bulk', hiddenFields(confirm.body));
    assert.equal(sent.statusCode, 303, sent.body);
    const progressUrl = String(sent.headers.location);
    const queuedPage = await c.get(progressUrl);
    assert.match(queuedPage.body, /<meta http-equiv="refresh" content="2">/, 'reloads itself while pending');
    assert.equal([...queuedPage.body.matchAll(/data-state="queued"/g)].length, 2, 'the left-out request is not queued');

    // The confirmed form again (a double click, a reload): the batch is not queued twice.
    await c.post('/control/bulk', { ...hiddenFields(confirm.body), _csrf: c.csrf });
    assert.equal(await runBulkJobs(t.app.payreq, 10), 2);
    assert.equal(await runBulkJobs(t.app.payreq, 10), 0);

    assert.equal(await status(a.uuid), 'CAPTURED');
    assert.equal(await status(b.uuid), 'CAPTURED');
    assert.equal(await status(notHeld.uuid), 'NOT_INITIATED');
    const done = await c.get(progressUrl);
    assert.doesNotMatch(done.body, /http-equiv="refresh"/);
    const states = [
      ...withoutLabels(done.body).matchAll(
        />((?:IMP|DEP)-[\d-]+)<\/a><\/td><td>Capture<\/td>\s*<td class="num">([^<]*)<\/td>\s*<td><span class="status (\w+)"/g,
      ),
    ].map((m) => [m[1], m[2], m[3]]);
    assert.deepEqual(states, [
      [a.reference, '€100.00', 'done'],
      [b.reference, '€150.50', 'done'],
    ]);
    assert.match(done.body, /Moved so far:<\/strong> two hundred and fifty euros and fifty cents \(€250\.50\)/);
    const audit = await t.repos.audit.list({ action: 'bulk_capture', limit: 10 });
    assert.deepEqual(audit.map((x) => x.outcome).sort(), ['ok', 'ok']);
    // Each job's audit row names the confirmed amount and the address the user confirmed from.
    const queuedFrom = (await t.repos.audit.list({ action: 'bulk_action', limit: 1 }))[0]?.ip;
    assert.ok(queuedFrom);
    assert.deepEqual(audit.map((x) => [x.detail.amount, x.ip]).sort(), [
      [10000, queuedFrom],
      [15050, queuedFrom],
    ]);
  });

  test('the jobs move exactly the confirmed amounts; a post that skips the confirmation queues nothing', async () => {
    const h = await hold(100);
    const batch = '0b5c8f9e-6666-4666-8666-666666666666';
    await c.get('/control/requests');
    // The confirmed form names 60.00 of the 100.00 held: 60.00 is captured.
    const { sent } = await bulkConfirmed(batch, 'capture', [h.uuid], (f) => ({ ...f, [`amount_${h.uuid}`]: '6000' }));
    assert.equal(sent.statusCode, 303);
    assert.equal(await runBulkJobs(t.app.payreq, 10), 1);
    const d = (await t.call({ method: 'GET', url: `/api/payment-requests/${h.uuid}/` })).json();
    assert.deepEqual([d.status, d.amount_captured], ['CAPTURED', 60]);

    // Without `confirmed`, the same fields only show the confirmation again.
    const other = await hold(30);
    const batch2 = '0b5c8f9e-7777-4777-8777-777777777777';
    await c.get('/control/requests');
    const direct = await c.post('/control/bulk', {
      batch: batch2,
      action: 'capture',
      ids: [other.uuid],
      [`amount_${other.uuid}`]: '3000',
    });
    assert.equal(direct.statusCode, 200);
    assert.equal((await t.repos.bulkJobs.batch(batch2, undefined)).length, 0);
    // A confirmed form without an amount for a request is refused whole.
    await c.get('/control/requests');
    const bad = await c.post('/control/bulk', {
      batch: batch2,
      action: 'capture',
      ids: [other.uuid],
      confirmed: 'yes',
    });
    assert.equal(bad.statusCode, 303);
    assert.equal((await t.repos.bulkJobs.batch(batch2, undefined)).length, 0);
    assert.equal(await status(other.uuid), 'AUTHORISED_TO_VALIDATE');
  });

  test('a bulk capture or refund takes a reason and a note, as a single one does; a reason off the list moves nothing', async () => {
    const h = await hold(100);
    await c.get('/control/requests');
    const batch = '0b5c8f9e-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
    const withWhy = (reason: string, note: string) => (f: Record<string, string | string[]>) => ({
      ...f,
      reason,
      note,
    });
    const { confirm, sent } = await bulkConfirmed(batch, 'capture', [h.uuid], withWhy('no_show', ' Did not arrive '));
    // The confirmation asks why, with the list of a single move's form.
    assert.match(confirm.body, /<select id="reason-capture" name="reason"><option value="">None given<\/option>/);
    assert.match(confirm.body, /<option value="no_show">No-show<\/option>/);
    assert.match(confirm.body, /<input id="note-capture" name="note" maxlength="500"/);
    assert.equal(sent.statusCode, 303);
    assert.equal(await runBulkJobs(t.app.payreq, 10), 1);
    const d = (await t.call({ method: 'GET', url: `/api/payment-requests/${h.uuid}/` })).json();
    assert.deepEqual(
      [d.status, d.capture_reason, d.capture_note],
      ['CAPTURED', 'no_show', 'Did not arrive'],
      'kept as a single capture keeps it',
    );
    assert.match((await c.get(`/control/requests/${h.uuid}`)).body, /Reason: No-show/);

    // A refund in bulk, with its own reason.
    await c.get('/control/requests');
    const refund = await bulkConfirmed(
      '0b5c8f9e-bbbb-4bbb-8bbb-bbbbbbbbbbbb',
      'refund',
      [h.uuid],
      withWhy('goodwill', ''),
    );
    assert.equal(refund.sent.statusCode, 303);
    assert.equal(await runBulkJobs(t.app.payreq, 10), 1);
    const r = (await t.call({ method: 'GET', url: `/api/payment-requests/${h.uuid}/` })).json();
    assert.deepEqual([r.refund_reason, r.refund_note], ['goodwill', null]);

    // A reason not on the list: refused with the single form's words, nothing queued or moved.
    const other = await hold(40);
    await c.get('/control/requests');
    const badBatch = '0b5c8f9e-cccc-4ccc-8ccc-cccccccccccc';
    const bad = await bulkConfirmed(badBatch, 'capture', [other.uuid], withWhy('because', ''));
    assert.equal(bad.sent.statusCode, 303);
    assert.match((await c.get('/control/requests')).body, /Choose a reason from the list\./);
    assert.equal((await t.repos.bulkJobs.batch(badBatch, undefined)).length, 0);
    assert.equal(await status(other.uuid), 'AUTHORISED_TO_VALIDATE');

    // A release moves no money: its confirmation asks no reason.
    const held = await hold(20);
    await c.get('/control/requests');
    const release = await c.post('/control/bulk', {
      batch: '0b5c8f9e-dddd-4ddd-8ddd-dddddddddddd',
      action: 'release',
      ids: [held.uuid],
    });
    assert.doesNotMatch(release.body, /name="reason"/);
  });

  test('a bulk form the schema refuses (an amount or the action given twice): nothing queued', async () => {
    const h = await hold(100);
    const batch = '0b5c8f9e-9999-4999-8999-999999999999';
    await c.get('/control/requests');
    // A confirmed amount given twice is not one amount: the form is refused whole, with the message.
    const { sent } = await bulkConfirmed(batch, 'capture', [h.uuid], (f) => ({
      ...f,
      [`amount_${h.uuid}`]: ['6000', '1'],
    }));
    assert.equal(sent.statusCode, 303);
    assert.equal(sent.headers.location, '/control/requests');
    assert.match((await c.get('/control/requests')).body, /Some values are not valid; nothing was saved\./);
    // Two actions at once name no action of the list: nothing here.
    const twice = await c.post('/control/bulk', { batch, action: ['capture', 'refund'], ids: [h.uuid] });
    assert.equal(twice.statusCode, 404);
    assert.equal((await t.repos.bulkJobs.batch(batch, undefined)).length, 0);
    assert.equal(await status(h.uuid), 'AUTHORISED_TO_VALIDATE');
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
    await bulkConfirmed(captureBatch, 'capture', [mine.uuid]);
    assert.equal(await runBulkJobs(t.app.payreq, 10), 1);
    assert.equal(await status(mine.uuid), 'CAPTURED');
    await workerDied(captureBatch);
    assert.equal(await runBulkJobs(t.app.payreq, 10), 1, 'the job came back once its lease ran out');
    assert.deepEqual(await jobStates(captureBatch), [`${mine.reference}:done:`]);

    const refundBatch = '0b5c8f9e-4444-4444-8444-444444444444';
    await c.get('/control/requests');
    await bulkConfirmed(refundBatch, 'refund', [mine.uuid]);
    assert.equal(await runBulkJobs(t.app.payreq, 10), 1);
    await workerDied(refundBatch);
    assert.equal(await runBulkJobs(t.app.payreq, 10), 1);
    assert.deepEqual(await jobStates(refundBatch), [`${mine.reference}:done:`]);
    assert.equal(await status(mine.uuid), 'REFUNDED');

    // Captured through the API before the bulk job ran: not the job's move, refused as before.
    const otherBatch = '0b5c8f9e-5555-4555-8555-555555555555';
    await c.get('/control/requests');
    await bulkConfirmed(otherBatch, 'capture', [theirs.uuid]);
    assert.equal(
      (await t.call({ method: 'POST', url: `/api/payment-requests/${theirs.uuid}/capture/` })).statusCode,
      200,
    );
    assert.equal(await runBulkJobs(t.app.payreq, 10), 1);
    assert.deepEqual(await jobStates(otherBatch), [
      `${theirs.reference}:refused:Cannot capture a payment request in status CAPTURED (allowed: AUTHORISED_TO_VALIDATE)`,
    ]);
    // The progress page words the refusal in the user's language, not the command's English.
    await c.get(`/control/language/fr?back=/control/bulk/${otherBatch}`);
    const fr = await c.get(`/control/bulk/${otherBatch}`);
    assert.match(fr.body, /Impossible dans son statut actuel/);
    assert.doesNotMatch(fr.body, /Cannot capture/);
    await c.get('/control/language/en?back=/control/requests');
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
