import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Transporter } from 'nodemailer';
import { loadConfig } from '../../src/config/index.ts';
import { MAX_ATTEMPTS, type MailLog, mailJobKind, sendDueEmails } from '../../src/mail/index.ts';
import { jobStore, runClaimed } from '../../src/queue/index.ts';
import { startServiceQueue } from '../../src/service-queue.ts';
import { createRequest, newKey, startTestApp, type TenantWithKey, type TestApp } from '../helpers/test-app.ts';
import { type SmtpSink, startSmtpSink } from './smtp-sink.ts';

interface OutboxRow {
  status: string;
  attempts: number;
  last_error: string | null;
  next_attempt_at: Date;
}

describe('e-mail delivery: confirmations, retries, concurrency', () => {
  let t: TestApp;
  let smtp: SmtpSink;
  let mailing: TenantWithKey;

  before(async () => {
    smtp = await startSmtpSink();
    t = await startTestApp({ env: { SMTP_URL: smtp.url, MAIL_RETRY_BASE_MS: '1000' } });
    const tenant = await t.repos.tenants.create({ name: 'Hôtel Beau Rivage', confirmationEmail: true });
    mailing = await newKey(t.repos, tenant.id);
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  const row = async (cause: string) =>
    (
      await t.db.query<OutboxRow>(
        'SELECT status, attempts, last_error, next_attempt_at FROM email_outbox WHERE cause = $1',
        [cause],
      )
    ).rows[0];
  const mailTo = (address: string) => smtp.messages.filter((m) => m.envelopeTo.includes(address));
  const later = (ms: number) => new Date(Date.now() + ms);

  test('a paid DEPOSIT: one confirmation, however often the payment is notified and the worker runs', async () => {
    const guest = 'deposit.guest@example.com';
    // A tenant that does not e-mail links still confirms deposits.
    const { uuid, reference } = await createRequest(t, {
      guest_email: guest,
      request_type: 'DEPOSIT',
      amount: 200,
      language: 'en',
    });
    const n = {
      eventId: `evt-${randomUUID()}`,
      paymentRequestId: uuid,
      outcome: 'paid' as const,
      transactionId: 'tx-d1',
      amountCents: 20000,
    };
    await t.app.payreq.notifications.apply('sandbox', n);
    await t.app.payreq.notifications.apply('sandbox', n);
    await t.app.payreq.notifications.apply('sandbox', { ...n, eventId: `evt-${randomUUID()}` });
    await sendDueEmails(t.app.payreq);
    await sendDueEmails(t.app.payreq);
    await sendDueEmails(t.app.payreq, later(24 * 3600_000));
    const got = mailTo(guest);
    assert.equal(got.length, 1);
    const m = got[0];
    assert.ok(m);
    assert.equal(m.subject, 'Hôtel des Tests: your deposit is confirmed');
    assert.ok(m.text.includes('We confirm your deposit of €200.00 to Hôtel des Tests.'), m.text);
    assert.ok(m.text.includes(`Reference: ${reference}`));
    assert.ok(m.text.includes('Check-in: 24 December 2026'));
    assert.ok(m.text.includes('Room type: Double'));
    assert.ok(m.html.includes(reference));
    assert.equal((await row(`deposit_confirmation:${uuid}`))?.status, 'sent');
    const d = await t.call({ method: 'GET', url: `/api/payment-requests/${uuid}/` });
    assert.equal(d.json().email_sent, true);
  });

  test('a refusing SMTP server: retried with growing delays, nothing lost, then delivered once', async () => {
    const guest = 'retry.guest@example.com';
    const { uuid } = await createRequest(t, { guest_email: guest }, mailing);
    const cause = `payment_link:${uuid}`;
    smtp.failing = true;
    try {
      const start = Date.now();
      await sendDueEmails(t.app.payreq, new Date(start));
      const first = await row(cause);
      assert.equal(first?.status, 'pending');
      assert.equal(first?.attempts, 1);
      assert.match(first?.last_error ?? '', /busy/);
      const delay1 = (first?.next_attempt_at.getTime() ?? 0) - start;
      assert.ok(delay1 >= 900 && delay1 <= 1100, `first retry after the base delay (${delay1} ms)`);

      // Not due yet: a round now leaves it alone.
      await sendDueEmails(t.app.payreq, new Date(start + 500));
      assert.equal((await row(cause))?.attempts, 1);

      await sendDueEmails(t.app.payreq, new Date(start + 1000));
      const second = await row(cause);
      assert.equal(second?.attempts, 2);
      const delay2 = (second?.next_attempt_at.getTime() ?? 0) - (start + 1000);
      assert.ok(delay2 >= 1900 && delay2 <= 2100, `the delay doubles (${delay2} ms)`);
      assert.equal(mailTo(guest).length, 0);
    } finally {
      smtp.failing = false;
    }
    await sendDueEmails(t.app.payreq, later(10_000));
    await sendDueEmails(t.app.payreq, later(3600_000));
    assert.equal(mailTo(guest).length, 1);
    const done = await row(cause);
    assert.equal(done?.status, 'sent');
    assert.equal(done?.attempts, 3);
    assert.equal(done?.last_error, null);
  });

  test('an SMTP server that is down (closed port): kept pending, delivered when it is back', async () => {
    const guest = 'down.guest@example.com';
    const { uuid } = await createRequest(t, { guest_email: guest }, mailing);
    const cause = `payment_link:${uuid}`;
    const gone = await startSmtpSink();
    const port = gone.port;
    await gone.close();
    const ctx = { db: t.db, config: { ...t.config, smtpUrl: `smtp://127.0.0.1:${port}` } };
    await sendDueEmails(ctx, later(0));
    const r = await row(cause);
    assert.equal(r?.status, 'pending');
    assert.equal(r?.attempts, 1);
    assert.ok(r?.last_error);
    const back = await startSmtpSink(port);
    try {
      await sendDueEmails(ctx, later(60_000));
      await sendDueEmails(ctx, later(120_000));
      assert.equal(back.messages.filter((m) => m.envelopeTo.includes(guest)).length, 1);
      assert.equal((await row(cause))?.status, 'sent');
    } finally {
      await back.close();
    }
  });

  test(`after ${MAX_ATTEMPTS} refused attempts the row is failed and no longer tried`, async () => {
    const guest = 'never.guest@example.com';
    const { uuid } = await createRequest(t, { guest_email: guest }, mailing);
    const cause = `payment_link:${uuid}`;
    smtp.failing = true;
    try {
      for (let i = 1; i <= MAX_ATTEMPTS + 2; i++) await sendDueEmails(t.app.payreq, later(i * 2 * 3600_000));
    } finally {
      smtp.failing = false;
    }
    const r = await row(cause);
    assert.equal(r?.status, 'failed');
    assert.equal(r?.attempts, MAX_ATTEMPTS);
    await sendDueEmails(t.app.payreq, later(100 * 3600_000));
    assert.equal(mailTo(guest).length, 0);
  });

  test('two workers running rounds at once on one database send each e-mail once', async () => {
    const guests = Array.from({ length: 12 }, (_, i) => `pair.${i}@example.com`);
    for (const g of guests) await createRequest(t, { guest_email: g }, mailing);
    const other = await startTestApp({ env: { SMTP_URL: smtp.url } });
    try {
      // The second instance shares the first one's database, as two servers on one PostgreSQL.
      const ctxB = { db: t.db, config: other.config };
      const now = later(1000 * 3600_000);
      await Promise.all([
        sendDueEmails(t.app.payreq, now, { batchSize: 3 }),
        sendDueEmails(ctxB, now, { batchSize: 3 }),
        sendDueEmails(t.app.payreq, now, { batchSize: 3 }),
        sendDueEmails(ctxB, now, { batchSize: 3 }),
        sendDueEmails(t.app.payreq, now, { batchSize: 3 }),
        sendDueEmails(ctxB, now, { batchSize: 3 }),
      ]);
      await Promise.all([sendDueEmails(t.app.payreq, now), sendDueEmails(ctxB, now)]);
    } finally {
      await other.close();
    }
    for (const g of guests) assert.equal(mailTo(g).length, 1, g);
  });

  test('without SMTP_URL the e-mail is logged (with its link) and stays pending', async () => {
    const guest = 'dev.guest@example.com';
    const { uuid } = await createRequest(t, { guest_email: guest }, mailing);
    const lines: { msg: string; obj: Record<string, unknown> }[] = [];
    const log: MailLog = {
      info: (obj, msg) => lines.push({ obj, msg }),
      warn: (obj, msg) => lines.push({ obj, msg }),
      error: (obj, msg) => lines.push({ obj, msg }),
    };
    const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: 'pglite://memory' });
    assert.equal(config.smtpUrl, undefined);
    const before = smtp.messages.length;
    await sendDueEmails({ db: t.db, config }, later(2000 * 3600_000), { log });
    assert.equal(smtp.messages.length, before);
    const line = lines.find((l) => l.obj.cause === `payment_link:${uuid}`);
    assert.ok(line, 'the message is logged');
    assert.equal(line.obj.to, guest);
    assert.ok(String(line.obj.text).includes(`/payment/${uuid}/`));
    const r = await row(`payment_link:${uuid}`);
    assert.equal(r?.status, 'pending');
    assert.equal(r?.attempts, 0, 'a logged message is not a failed attempt');
    // A later start with SMTP_URL sends it.
    await sendDueEmails(t.app.payreq, later(3000 * 3600_000));
    assert.equal(mailTo(guest).length, 1);
  });

  test('the background worker sends what is due as it starts, and stop() waits for its jobs', async () => {
    const guest = 'worker.guest@example.com';
    await createRequest(t, { guest_email: guest }, mailing);
    const log: MailLog = { info() {}, warn() {}, error() {} };
    const worker = await startServiceQueue(t.app.payreq, log);
    try {
      const deadline = Date.now() + 10_000;
      while (mailTo(guest).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    } finally {
      await worker.stop();
    }
    assert.equal(mailTo(guest).length, 1);
  });
  test('a sender whose lease ran out and was taken over cannot record its outcome: the row is as its successor left it', async () => {
    const guest = 'fenced.guest@example.com';
    const { uuid } = await createRequest(t, { guest_email: guest }, mailing);
    const cause = `payment_link:${uuid}`;
    const id = (await t.db.query<{ id: string }>('SELECT id::text AS id FROM email_outbox WHERE cause = $1', [cause]))
      .rows[0]?.id;
    // Sender A claims it and hangs in the SMTP exchange past its 5-minute lease.
    const at = later(5000 * 3600_000);
    const claimed = await jobStore(t.db).claim('mail', { limit: 100, leaseMs: 5 * 60_000, owner: 'A', now: at });
    const mine = claimed.find((j) => j.ref === id);
    assert.ok(mine);
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let sending = false;
    const hanging = {
      sendMail: async () => {
        sending = true;
        await gate;
        return {};
      },
      close() {},
    } as unknown as Transporter;
    const silent: MailLog = { info() {}, warn() {}, error() {} };
    const a = runClaimed(t.db, mailJobKind(t.app.payreq, hanging, silent), mine, at);
    while (!sending) await new Promise((resolve) => setImmediate(resolve));
    // Sender B takes it over once the lease has run out, and sends it.
    await sendDueEmails(t.app.payreq, new Date(at.getTime() + 6 * 60_000));
    assert.equal(mailTo(guest).length, 1);
    // A's server finally accepts: A can record nothing.
    release();
    assert.equal(await a, 'lease_lost');
    const r = await row(cause);
    assert.equal(r?.status, 'sent');
    assert.equal(r?.attempts, 2, "B's attempt, the second");
  });
});
