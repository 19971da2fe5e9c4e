import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sendDueEmails } from '../../src/mail/index.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { createRequest, ENGINE, newKey, startTestApp, type TenantWithKey, type TestApp } from '../helpers/test-app.ts';
import { type SmtpSink, startSmtpSink } from '../mail/smtp-sink.ts';
import { ControlClient, createUser } from './control-client.ts';

// "Send a new link" on a REFUSED or EXPIRED request (both final): a new request for the same
// guest, amount and reservation, made by the API's create, the two linked both ways, the link
// e-mailed when the hotel e-mails links (else shown to copy); a double click makes one; audited.
describe(`"Send a new link" (${ENGINE})`, { timeout: 120_000 }, () => {
  let t: TestApp;
  let smtp: SmtpSink;
  let mailing: TenantWithKey;
  let desk: ControlClient;
  let quiet: ControlClient;
  let viewer: ControlClient;
  before(async () => {
    smtp = await startSmtpSink();
    t = await startTestApp({ env: { SMTP_URL: smtp.url, PUBLIC_BASE_URL: 'https://pay.example.test' } });
    const tenant = await t.repos.tenants.create({ name: 'Hôtel du Lac', confirmationEmail: true });
    mailing = await newKey(t.repos, tenant.id);
    await createUser(t, 'desk-new-link', tenant.id, 'frontdesk');
    await createUser(t, 'quiet-new-link', t.tenant.tenantId, 'frontdesk');
    await createUser(t, 'viewer-new-link', tenant.id, 'viewer');
    desk = await new ControlClient(t, '10.6.3.1').signedIn('desk-new-link');
    quiet = await new ControlClient(t, '10.6.3.2').signedIn('quiet-new-link');
    viewer = await new ControlClient(t, '10.6.3.3').signedIn('viewer-new-link');
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  async function refused(tenant: TenantWithKey, overrides: Record<string, unknown> = {}) {
    const r = await createRequest(
      t,
      {
        request_type: 'DEPOSIT',
        amount: 123.45,
        currency: 'EUR',
        language: 'fr',
        guest_phone: '+33612345678',
        reservation_ref: `RES-${randomBytes(3).toString('hex')}`,
        ...overrides,
      },
      tenant,
    );
    const outcome = await t.app.payreq.notifications.apply('lyra', {
      eventId: `evt_${randomBytes(8).toString('hex')}`,
      paymentRequestId: r.uuid,
      outcome: 'refused',
      declineCode: 'ACQ_001/05',
    });
    assert.equal(outcome, 'applied');
    return r;
  }
  const detail = async (id: string, tenant: TenantWithKey) => {
    const r = await t.call({ method: 'GET', url: `/api/payment-requests/${id}/`, tenant });
    assert.equal(r.statusCode, 200, r.body);
    return r.json() as Record<string, unknown>;
  };
  /** Posts the page's "Send a new link" form; where it leads, and that page's flash. */
  async function sendNewLink(c: ControlClient, id: string) {
    const page = await c.get(`/control/requests/${id}`);
    assert.match(page.body, new RegExp(`<form method="post" action="/control/requests/${id}/new-link"`));
    const r = await c.post(`/control/requests/${id}/new-link`);
    assert.equal(r.statusCode, 303, r.body);
    const to = String(r.headers.location);
    const next = await c.get(to);
    return {
      to,
      body: next.body,
      flash: /<p class="flash[^"]*" role="status">([^<]*)<\/p>/.exec(next.body)?.[1] ?? '',
    };
  }

  test('a refused deposit: a new request, same guest, amount, reservation and data, linked both ways, its link e-mailed', async () => {
    const old = await refused(mailing);
    const { to, body, flash } = await sendNewLink(desk, old.uuid);
    const newId = /\/control\/requests\/([0-9a-f-]{36})$/.exec(to)?.[1] as string;
    assert.ok(newId && newId !== old.uuid, to);
    const [before, after] = [await detail(old.uuid, mailing), await detail(newId, mailing)];
    assert.equal(after.status, 'NOT_INITIATED');
    for (const field of [
      'request_type',
      'amount',
      'currency',
      'guest_email',
      'guest_first_name',
      'guest_last_name',
      'reservation_ref',
      'reservation_data',
    ]) {
      assert.deepEqual(after[field], before[field], field);
    }
    assert.notEqual(after.reference, before.reference);
    assert.equal(after.replaces, old.uuid);
    assert.equal(before.replaced_by, newId);
    assert.equal(before.status, 'REFUSED', 'the refused request stays as it was: REFUSED is final');
    assert.equal(before.decline_reason, 'do_not_honour');
    const phone = await t.db.query<{ guest_phone: string; language: string }>(
      'SELECT guest_phone, language FROM payment_requests WHERE id = $1',
      [newId],
    );
    assert.deepEqual(phone.rows[0], { guest_phone: '+33612345678', language: 'fr' });
    // Both pages name the other; the new one says where its link went, and shows it to copy.
    assert.match(flash, new RegExp(`New request ${after.reference} made; its payment link e-mail is on its way`));
    assert.match(body, new RegExp(`Replaces</dt><dd><a href="/control/requests/${old.uuid}">${before.reference}</a>`));
    assert.match(body, new RegExp(`value="https://pay.example.test/payment/${newId}/"`));
    const oldPage = (await desk.get(`/control/requests/${old.uuid}`)).body;
    assert.match(
      oldPage,
      new RegExp(`Replaced by</dt><dd><a href="/control/requests/${newId}">${after.reference}</a>`),
    );
    assert.doesNotMatch(oldPage, /action="[^"]*\/new-link"/, 'replaced once: no second button');
    // The guest gets the new link by e-mail (the SMTP sink), in the request's language.
    await sendDueEmails(t.app.payreq);
    const mails = smtp.messages.filter((m) => m.text.includes(`https://pay.example.test/payment/${newId}/`));
    assert.equal(mails.length, 1);
    assert.deepEqual(mails[0]?.envelopeTo, [before.guest_email]);
    assert.match(String(mails[0]?.subject), /Hôtel du Lac/);
    // Audited once, on the replaced request.
    const audits = await t.db.query<{ action: string; outcome: string; detail: Record<string, unknown> }>(
      `SELECT action, outcome, detail FROM admin_audit WHERE payment_request_id = $1 AND action = 'new_link'`,
      [old.uuid],
    );
    assert.deepEqual(audits.rows, [{ action: 'new_link', outcome: 'ok', detail: { new_reference: after.reference } }]);
  });

  test('a double click: two posts at once make one request; a later post lands on it', async () => {
    const old = await refused(mailing);
    await desk.get(`/control/requests/${old.uuid}`);
    const [a, b] = await Promise.all([
      desk.post(`/control/requests/${old.uuid}/new-link`),
      desk.post(`/control/requests/${old.uuid}/new-link`),
    ]);
    assert.deepEqual([a.statusCode, b.statusCode], [303, 303]);
    assert.equal(a.headers.location, b.headers.location, 'both clicks land on the one new request');
    const again = await desk.post(`/control/requests/${old.uuid}/new-link`);
    assert.equal(again.headers.location, a.headers.location);
    const flash = (await desk.get(String(again.headers.location))).body;
    assert.match(flash, /A new request was already made for this one/);
    const made = await t.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM payment_requests WHERE replaces = $1 OR (reservation_ref = $2 AND id <> $1)',
      [old.uuid, (await detail(old.uuid, mailing)).reservation_ref],
    );
    assert.equal(made.rows[0]?.n, 1);
    const audits = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM admin_audit WHERE payment_request_id = $1 AND action = 'new_link'`,
      [old.uuid],
    );
    assert.equal(audits.rows[0]?.n, 1, 'audited once: the click that made it');
    // The new request deleted: the old one is unlinked, and may be replaced again.
    const first = String(a.headers.location).split('/').at(-1) as string;
    const gone = await t.call({ method: 'DELETE', url: `/api/payment-requests/${first}/`, tenant: mailing });
    assert.ok(gone.statusCode < 300, gone.body);
    assert.equal((await detail(old.uuid, mailing)).replaced_by, null);
    const { to, flash: remade } = await sendNewLink(desk, old.uuid);
    assert.notEqual(to, a.headers.location);
    assert.match(remade, /^New request /);
    assert.equal((await detail(old.uuid, mailing)).replaced_by, to.split('/').at(-1));
  });

  test('an expired imprint too; a hotel that does not e-mail links: the link to copy, nothing sent', async () => {
    const old = await createRequest(t, { request_type: 'IMPRINT', amount: 200 });
    await arrangeStatus(t.db, old.uuid, 'EXPIRED');
    const { to, body, flash } = await sendNewLink(quiet, old.uuid);
    const newId = to.split('/').at(-1) as string;
    assert.match(flash, /does not e-mail payment links: copy the link below/);
    assert.match(body, new RegExp(`/payment/${newId}/"`));
    const outbox = await t.db.query('SELECT 1 FROM email_outbox WHERE payment_request_id = $1', [newId]);
    assert.equal(outbox.rowCount, 0);
    await sendDueEmails(t.app.payreq);
    assert.equal(smtp.messages.filter((m) => m.text.includes(`/payment/${newId}/`)).length, 0, 'nothing sent');
    assert.equal((await detail(newId, t.tenant)).replaces, old.uuid);
  });

  test('not on a request still open or paid; not for a viewer; another hotel’s request is a 404', async () => {
    const open = await createRequest(t, {}, mailing);
    const page = (await desk.get(`/control/requests/${open.uuid}`)).body;
    assert.doesNotMatch(page, /\/new-link"/);
    await desk.get(`/control/requests/${open.uuid}`);
    const r = await desk.post(`/control/requests/${open.uuid}/new-link`);
    assert.equal(r.statusCode, 303);
    assert.equal(r.headers.location, `/control/requests/${open.uuid}`);
    assert.match(
      (await desk.get(String(r.headers.location))).body,
      /Cannot send a new link for a payment request in status NOT_INITIATED/,
    );
    assert.equal((await detail(open.uuid, mailing)).replaced_by, null);

    const old = await refused(mailing);
    assert.doesNotMatch((await viewer.get(`/control/requests/${old.uuid}`)).body, /\/new-link"/);
    const denied = await viewer.post(`/control/requests/${old.uuid}/new-link`);
    assert.equal(denied.statusCode, 403);
    const elsewhere = await quiet.post(`/control/requests/${old.uuid}/new-link`);
    assert.equal(elsewhere.statusCode, 404);
    assert.equal((await detail(old.uuid, mailing)).replaced_by, null, 'nothing was made');
  });
});
