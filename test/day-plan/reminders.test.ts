import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type AppContext, buildContext } from '../../src/context.ts';
import { type Database, openDatabase } from '../../src/db/index.ts';
import { runDueJobs, sendPaymentReminders } from '../../src/jobs/index.ts';
import { sendDueEmails } from '../../src/mail/index.ts';
import { ControlClient, createUser } from '../control/control-client.ts';
import { runQueuedJobs } from '../helpers/scheduled-runs.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { type SmtpSink, startSmtpSink } from '../mail/smtp-sink.ts';

const HOUR = 3600_000;

describe(`reminders of unpaid links, two instances on one database (${ENGINE})`, { timeout: 180_000 }, () => {
  let t: TestApp;
  let smtp: SmtpSink;
  let second: Database;
  /** The second instance: its own pool on PostgreSQL (PGlite is one process's database). */
  let b: AppContext;

  before(async () => {
    smtp = await startSmtpSink();
    t = await startTestApp({ env: { SMTP_URL: smtp.url } });
    second = ENGINE === 'postgres' ? await openDatabase({ engine: 'postgres', url: t.testDb.url }) : t.db;
    b = await buildContext({ config: t.config, db: second });
    await t.repos.tenants.update(t.tenant.tenantId, { reminders: true, name: 'Hôtel des Tests' });
    await createUser(t, 'desk-reminders', t.tenant.tenantId);
  });
  after(async () => {
    if (second !== t.db) await second.close();
    await t.close();
    await smtp.close();
  });

  const a = () => t.app.payreq;
  /** The reminders a guest received (a paid deposit also gets its confirmation). */
  const mailTo = (address: string) =>
    smtp.messages.filter((m) => m.envelopeTo.includes(address) && /rappel|reminder|Erinnerung/.test(m.subject));
  const createdAt = async (id: string) =>
    (await t.db.query<{ created_at: Date }>('SELECT created_at FROM payment_requests WHERE id = $1', [id])).rows[0]
      ?.created_at as Date;
  /** Both instances' schedulers find the job due at `now`, and both also run it directly, at once. */
  async function runEverywhere(now: Date): Promise<void> {
    await t.db.query(
      "UPDATE job_schedules SET enabled = (job = 'send_payment_reminders'), next_run_at = $1 WHERE true",
      [new Date(now.getTime() - 1000)],
    );
    const [ra, rb] = await Promise.all([
      runDueJobs(a(), now),
      runDueJobs(b, now),
      sendPaymentReminders({ dayPlan: a().repos.dayPlan }, now),
      sendPaymentReminders({ dayPlan: b.repos.dayPlan }, now),
    ]);
    // The scheduler queued the slot on exactly one instance; the queue runs it once.
    assert.equal(ra.length + rb.length, 1, 'one scheduler run of the slot');
    const [qa, qb] = await Promise.all([
      runQueuedJobs(a(), { only: ['send_payment_reminders'] }),
      runQueuedJobs(b, { only: ['send_payment_reminders'] }),
    ]);
    assert.deepEqual([...qa, ...qb], ['ok']);
  }
  const remindersOf = async (id: string) =>
    (
      await t.db.query<{ reminder_number: number; status: string; last_error: string | null }>(
        "SELECT reminder_number, status, last_error FROM email_outbox WHERE payment_request_id = $1 AND kind = 'payment_reminder' ORDER BY reminder_number",
        [id],
      )
    ).rows;
  const pay = (uuid: string) =>
    a().notifications.apply('sandbox', {
      eventId: `evt-${randomUUID()}`,
      paymentRequestId: uuid,
      outcome: 'paid',
      amountCents: 15000,
      currency: 'EUR',
      transactionId: `tx-${randomUUID()}`,
      maskedPan: '424242XXXXXX4242',
      expiryMonth: 9,
      expiryYear: 2029,
    });

  test('once per slot across instances, in the request language; stopped by payment and cancellation; capped', async () => {
    const fr = await createRequest(t, { request_type: 'DEPOSIT', language: 'fr', guest_email: 'fr.guest@example.com' });
    const en = await createRequest(t, { request_type: 'IMPRINT', language: 'en', guest_email: 'en.guest@example.com' });
    const de = await createRequest(t, { request_type: 'DEPOSIT', language: 'de', guest_email: 'de.guest@example.com' });
    const start = await createdAt(de.uuid);

    // Half an hour on: no slot has come.
    await runEverywhere(new Date(start.getTime() + HOUR / 2));
    await sendDueEmails(a());
    assert.equal(smtp.messages.length, 0);
    assert.deepEqual(await remindersOf(de.uuid), []);

    // 48 hours after the request: the first reminder, once, though four runs saw the slot.
    const first = new Date(start.getTime() + 49 * HOUR);
    await runEverywhere(first);
    await runEverywhere(new Date(first.getTime() + 15 * 60_000));
    await Promise.all([sendDueEmails(a()), sendDueEmails(b)]);
    assert.deepEqual(
      mailTo('fr.guest@example.com').map((m) => m.subject),
      ['Hôtel des Tests : rappel : acompte pour votre réservation'],
    );
    assert.deepEqual(
      mailTo('en.guest@example.com').map((m) => m.subject),
      ['Hôtel des Tests: reminder: secure your booking'],
    );
    assert.deepEqual(
      mailTo('de.guest@example.com').map((m) => m.subject),
      ['Hôtel des Tests: Erinnerung: Anzahlung für Ihre Reservierung'],
    );
    const frMail = mailTo('fr.guest@example.com')[0];
    assert.ok(frMail?.text.includes(`/payment/${fr.uuid}/`), 'the reminder carries the payment link');
    assert.ok(frMail?.text.includes('Ce lien est valable jusqu’au'), frMail?.text);

    // The history on the back office says so.
    const c = await new ControlClient(t, '10.9.0.1').signedIn('desk-reminders');
    const page = await c.get(`/control/requests/${de.uuid}`);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Reminder 1 sent/);

    // Paid and cancelled requests get nothing more; the other one its last reminder, a day before the link expires.
    await pay(fr.uuid);
    assert.equal((await t.call({ method: 'POST', url: `/api/payment-requests/${en.uuid}/cancel/` })).statusCode, 200);
    const link = await t.db.query<{ link_expires_at: Date }>(
      'SELECT link_expires_at FROM payment_requests WHERE id = $1',
      [de.uuid],
    );
    const expiresAt = link.rows[0]?.link_expires_at;
    assert.ok(expiresAt);
    const beforeExpiry = new Date(new Date(expiresAt).getTime() - 23 * HOUR);
    await runEverywhere(beforeExpiry);
    await sendDueEmails(a());
    assert.equal(mailTo('fr.guest@example.com').length, 1, 'paid: no second reminder');
    assert.equal(mailTo('en.guest@example.com').length, 1, 'cancelled: no second reminder');
    assert.equal(mailTo('de.guest@example.com').length, 2, 'the before-expiry reminder');
    assert.deepEqual(
      (await remindersOf(de.uuid)).map((r) => [r.reminder_number, r.status]),
      [
        [1, 'sent'],
        [2, 'sent'],
      ],
    );

    // At most reminder_max (2): nothing more, even after more "every 48 h" slots.
    await runEverywhere(new Date(beforeExpiry.getTime() + 12 * HOUR));
    await sendDueEmails(a());
    assert.equal(mailTo('de.guest@example.com').length, 2);
  });

  test('a reminder queued before the payment is not sent, and the history says so', async () => {
    const r = await createRequest(t, {
      request_type: 'DEPOSIT',
      language: 'en',
      guest_email: 'late.payer@example.com',
    });
    const start = await createdAt(r.uuid);
    await runEverywhere(new Date(start.getTime() + 49 * HOUR));
    assert.deepEqual(
      (await remindersOf(r.uuid)).map((x) => x.status),
      ['pending'],
    );
    await pay(r.uuid);
    await sendDueEmails(a());
    assert.equal(mailTo('late.payer@example.com').length, 0);
    const rows = await remindersOf(r.uuid);
    assert.equal(rows[0]?.status, 'failed');
    assert.match(rows[0]?.last_error ?? '', /CAPTURED/);
    const c = await new ControlClient(t, '10.9.0.2').signedIn('desk-reminders');
    assert.match((await c.get(`/control/requests/${r.uuid}`)).body, /Reminder 1 not sent/);
  });

  test('a deleted request and an expired link get no reminder', async () => {
    const gone = await createRequest(t, { request_type: 'DEPOSIT', guest_email: 'deleted@example.com' });
    const lapsed = await createRequest(t, { request_type: 'DEPOSIT', guest_email: 'lapsed@example.com' });
    const start = await createdAt(gone.uuid);
    assert.equal((await t.call({ method: 'DELETE', url: `/api/payment-requests/${gone.uuid}/` })).statusCode, 200);
    await t.db.query("UPDATE payment_requests SET link_expires_at = created_at + interval '40 hours' WHERE id = $1", [
      lapsed.uuid,
    ]);
    await runEverywhere(new Date(start.getTime() + 49 * HOUR));
    await sendDueEmails(a());
    assert.equal(mailTo('deleted@example.com').length + mailTo('lapsed@example.com').length, 0);
    assert.deepEqual(await remindersOf(lapsed.uuid), []);
  });

  test('a failed guarantee gets its own asks for a card, not reminders; an ERROR of a payment does', async () => {
    const failed = await createRequest(t, { request_type: 'IMPRINT', guest_email: 'blocked-card@example.com' });
    const errored = await createRequest(t, { request_type: 'DEPOSIT', guest_email: 'errored@example.com' });
    const start = await createdAt(failed.uuid);
    // As a refused daily hold leaves an IMPRINT, and as a technical failure leaves a payment.
    await t.db.query(
      "UPDATE payment_requests SET status = 'ERROR', guarantee_failed_at = now(), guarantee_failures = 1 WHERE id = $1",
      [failed.uuid],
    );
    await t.db.query("UPDATE payment_requests SET status = 'ERROR' WHERE id = $1", [errored.uuid]);
    await runEverywhere(new Date(start.getTime() + 49 * HOUR));
    assert.deepEqual(await remindersOf(failed.uuid), []);
    assert.equal((await remindersOf(errored.uuid)).length, 1);
  });

  test('every N hours up to the maximum, the last place kept for the one before expiry', async () => {
    await t.repos.tenants.update(t.tenant.tenantId, { reminder_max: 3 });
    try {
      const r = await createRequest(t, { request_type: 'DEPOSIT', guest_email: 'often@example.com' });
      const start = await createdAt(r.uuid);
      for (const hours of [49, 97, 145, 193]) await runEverywhere(new Date(start.getTime() + hours * HOUR));
      // Two "every 48 h" reminders (48 h, 96 h), then none: the third place is the one before expiry.
      assert.deepEqual(
        (await remindersOf(r.uuid)).map((x) => x.reminder_number),
        [1, 2],
      );
      const cause = await t.db.query<{ cause: string }>(
        "SELECT cause FROM email_outbox WHERE payment_request_id = $1 AND kind = 'payment_reminder' ORDER BY id",
        [r.uuid],
      );
      assert.deepEqual(
        cause.rows.map((x) => x.cause.split(':').at(-1)),
        ['1', '2'],
      );
    } finally {
      await t.repos.tenants.update(t.tenant.tenantId, { reminder_max: 2 });
    }
  });
});
