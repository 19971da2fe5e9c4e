import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sendDueEmails } from '../../src/mail/index.ts';
import { createRequest, newKey, startTestApp, type TenantWithKey, type TestApp } from '../helpers/test-app.ts';
import { type SmtpSink, startSmtpSink } from './smtp-sink.ts';

interface OutboxRow {
  kind: string;
  cause: string;
  status: string;
  attempts: number;
}

describe('payment link e-mail', () => {
  let t: TestApp;
  let smtp: SmtpSink;
  let mailing: TenantWithKey;

  before(async () => {
    smtp = await startSmtpSink();
    t = await startTestApp({ env: { SMTP_URL: smtp.url, PUBLIC_BASE_URL: 'https://pay.example.test' } });
    const tenant = await t.repos.tenants.create({ name: 'Hôtel du Lac', confirmationEmail: true });
    mailing = await newKey(t.repos, tenant.id);
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  const outbox = async (id: string) =>
    (
      await t.db.query<OutboxRow>(
        'SELECT kind, cause, status, attempts FROM email_outbox WHERE payment_request_id = $1 ORDER BY id',
        [id],
      )
    ).rows;
  const mailTo = (address: string) => smtp.messages.filter((m) => m.envelopeTo.includes(address));

  test('a tenant with confirmation_email: the create writes exactly one payment_link row', async () => {
    const { uuid } = await createRequest(t, {}, mailing);
    assert.deepEqual(await outbox(uuid), [
      { kind: 'payment_link', cause: `payment_link:${uuid}`, status: 'pending', attempts: 0 },
    ]);
  });

  test('a tenant without confirmation_email: no e-mail is queued', async () => {
    const { uuid } = await createRequest(t);
    assert.deepEqual(await outbox(uuid), []);
    await sendDueEmails(t.app.payreq);
    const d = await t.call({ method: 'GET', url: `/api/payment-requests/${uuid}/` });
    assert.equal(d.json().email_sent, false);
  });

  test('the worker sends it to the guest, in French, with the link and the reservation details', async () => {
    const guest = 'fr.guest@example.com';
    const { uuid } = await createRequest(
      t,
      { guest_email: guest, request_type: 'IMPRINT', amount: 150, language: 'fr' },
      mailing,
    );
    await sendDueEmails(t.app.payreq);
    const got = mailTo(guest);
    assert.equal(got.length, 1);
    const m = got[0];
    assert.ok(m);
    assert.deepEqual(m.envelopeTo, [guest]);
    assert.equal(m.subject, 'Hôtel du Lac : garantie de votre réservation');
    assert.match(m.from, /Hôtel du Lac/);
    assert.match(m.from, /no-reply@pay\.example\.test/);
    assert.equal(m.messageId, `<payment_link.${uuid}@pay.example.test>`);
    const link = `https://pay.example.test/payment/${uuid}/`;
    for (const body of [m.text, m.html]) {
      assert.ok(body.includes(link), 'the link');
      assert.ok(body.includes('Bonjour Jeanne Martin'), 'the greeting');
      assert.ok(body.includes('150,00'), 'the amount, French style');
      assert.ok(body.includes('Aucun montant n’est débité maintenant'), 'what an imprint means');
      assert.ok(body.includes('24 décembre 2026'), 'checkin');
      assert.ok(body.includes('27 décembre 2026'), 'checkout');
      assert.ok(body.includes('Double'), 'room type');
    }
    assert.ok(m.html.includes(`href="${link}"`));
    // French typography in the text part, which no stylesheet sets: a no-break space before ":".
    assert.match(m.text, /^Arrivée\u00a0: 24 décembre 2026$/m);
    const glued = m.text.split('\n').filter((line) => /\p{L}:(?:\s|$)/u.test(line));
    assert.deepEqual(glued, [], 'no French line with a colon glued to its word');
    const rows = await outbox(uuid);
    assert.equal(rows[0]?.status, 'sent');
    const d = await t.call({ method: 'GET', url: `/api/payment-requests/${uuid}/`, tenant: mailing });
    assert.equal(d.json().email_sent, true);
  });

  test('English and German: subject and body in the guest language; a deposit says it is charged now', async () => {
    const en = await createRequest(
      t,
      { guest_email: 'en.guest@example.com', language: 'en', request_type: 'DEPOSIT', amount: 80.5, currency: 'USD' },
      mailing,
    );
    const de = await createRequest(
      t,
      { guest_email: 'de.guest@example.com', language: 'de', reservation_data: { room_type: 'Suite' } },
      mailing,
    );
    await sendDueEmails(t.app.payreq);
    const e = mailTo('en.guest@example.com')[0];
    assert.ok(e);
    // A deposit is asked for as such, not as a guarantee.
    assert.equal(e.subject, 'Hôtel du Lac: deposit for your booking');
    assert.ok(e.text.includes('Hello Jeanne Martin'));
    assert.ok(e.text.includes('US$80.50 will be charged to your card now.'));
    assert.ok(e.text.includes('24 December 2026'));
    assert.ok(e.text.includes(`/payment/${en.uuid}/`));
    const g = mailTo('de.guest@example.com')[0];
    assert.ok(g);
    assert.equal(g.subject, 'Hôtel du Lac: Garantie Ihrer Reservierung');
    assert.ok(g.text.includes('Guten Tag Jeanne Martin'));
    assert.ok(g.text.includes('Es wird jetzt nichts abgebucht'));
    assert.match(g.text, /150,00\s€/, 'the amount, German style');
    assert.ok(g.text.includes('Zimmerkategorie: Suite'));
    assert.ok(!g.text.includes('Anreise:'), 'no checkin line when reservation_data has none');
    assert.ok(g.text.includes(`/payment/${de.uuid}/`));
  });

  test('hostile guest name and reservation data are escaped in the HTML, and the sender comes from the tenant', async () => {
    const tenant = await t.repos.tenants.create({ name: 'Evil <b>Inn</b> & "Co"', confirmationEmail: true });
    await t.db.query('UPDATE tenants SET sender_email = $2 WHERE id = $1', [tenant.id, 'desk@evil-inn.example']);
    const key = await newKey(t.repos, tenant.id);
    const guest = 'hostile@example.com';
    await createRequest(
      t,
      {
        guest_email: guest,
        language: 'en',
        guest_first_name: '<script>alert(1)</script>',
        guest_last_name: '"><img src=x onerror=alert(2)>',
        reservation_data: {
          checkin: '2026-12-24',
          checkout: '2026-12-27',
          room_type: '<a href="javascript:x">Suite</a>',
        },
      },
      key,
    );
    await sendDueEmails(t.app.payreq);
    const m = mailTo(guest)[0];
    assert.ok(m);
    assert.match(m.from, /desk@evil-inn\.example/);
    assert.ok(!m.html.includes('<script>'), m.html);
    assert.ok(!m.html.includes('<img'));
    assert.ok(!m.html.includes('<a href="javascript'));
    assert.ok(!m.html.includes('<b>Inn'));
    assert.ok(m.html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
    assert.ok(m.html.includes('&quot;&gt;&lt;img src=x onerror=alert(2)&gt;'));
    assert.ok(m.html.includes('Evil &lt;b&gt;Inn&lt;/b&gt; &amp; &quot;Co&quot;'));
    assert.ok(m.text.includes('Hello <script>alert(1)</script>'), 'plain text shows the name as typed');
  });

  test('a request deleted before the e-mail went out: given up with a reason, never sent', async () => {
    const guest = 'deleted@example.com';
    const { uuid } = await createRequest(t, { guest_email: guest }, mailing);
    const del = await t.call({ method: 'DELETE', url: `/api/payment-requests/${uuid}/`, tenant: mailing });
    assert.equal(del.statusCode, 200, del.body);
    await sendDueEmails(t.app.payreq);
    assert.equal(mailTo(guest).length, 0);
    const r = await t.db.query<{ status: string; last_error: string }>(
      'SELECT status, last_error FROM email_outbox WHERE cause = $1',
      [`payment_link:${uuid}`],
    );
    assert.deepEqual(r.rows, [{ status: 'failed', last_error: 'payment request deleted' }]);
  });
});
