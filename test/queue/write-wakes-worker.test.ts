import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../helpers/sandbox-checkout.ts';
import { createRequest, ENGINE, newKey, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { type SmtpSink, startSmtpSink } from '../mail/smtp-sink.ts';

/**
 * The queue has no NOTIFY: a worker finds jobs queued elsewhere at its next poll, and a write
 * answered by its own instance wakes it at once. With the poll an hour away, an e-mail queued
 * by an API create can only leave now through that wake-up.
 */
describe(`an answered write wakes this instance's worker (${ENGINE})`, { timeout: 120_000 }, () => {
  let t: TestApp;
  let smtp: SmtpSink;
  before(async () => {
    smtp = await startSmtpSink();
    t = await startTestApp({ env: { SMTP_URL: smtp.url, WORKERS: 'on' }, queuePollMs: 3_600_000 });
  });
  after(async () => {
    await t?.close();
    await smtp?.close();
  });

  test('the payment link e-mail of a create leaves without waiting for the poll', async () => {
    const hotel = await t.repos.tenants.create({ name: 'Hôtel du Réveil', confirmationEmail: true });
    const key = await newKey(t.repos, hotel.id);
    const guest = 'woken.worker@example.com';
    const c = await createRequest(t, { guest_email: guest }, key);
    const mail = await eventually(
      async () => smtp.messages.find((m) => m.envelopeTo.includes(guest)),
      'the payment link e-mail',
      30_000,
    );
    assert.ok(mail.text.includes(c.uuid), 'the e-mail carries the request link');
    // The outbox says so once the worker has heard the server's answer (just after it arrives).
    await eventually(async () => {
      const r = await t.db.query<{ status: string }>(
        "SELECT status FROM email_outbox WHERE payment_request_id = $1 AND kind = 'payment_link'",
        [c.uuid],
      );
      return r.rows.length === 1 && r.rows[0]?.status === 'sent' ? true : undefined;
    }, 'the outbox row marked sent');
  });
});
