import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import type { Database } from '../../src/db/index.ts';
import { sendDueEmails } from '../../src/mail/index.ts';
import { cliEnv, killAll, ServeProcess, scratchDir } from '../cli/payreq-process.ts';
import { sharedDatabases } from '../cli/shared-database.ts';
import { ENGINE } from '../helpers/database.ts';
import { freePort } from '../helpers/listening-app.ts';
import { createBody, newKey } from '../helpers/test-app.ts';
import { type SmtpSink, startSmtpSink } from './smtp-sink.ts';

const SECRET_KEY = 's'.repeat(64);
const BACKLOG_LINE =
  /SMTP_URL is set: sending (\d+) e-mails? kept while it was not; (\d+) queued more than (\d+) h ago marked expired/;

/**
 * E-mails pile up while SMTP_URL is unset (development, a trial). The first `payreq serve` with
 * it set says how many it is about to send, sends those younger than MAIL_BACKLOG_MAX_AGE_HOURS
 * and marks the older ones expired, unsent.
 */
describe(`a backlog of e-mails when SMTP_URL comes (${ENGINE})`, { timeout: 300_000 }, () => {
  const scratch = scratchDir();
  const databases = sharedDatabases(scratch.dir);
  let smtp: SmtpSink;
  before(async () => {
    smtp = await startSmtpSink();
  });
  after(async () => {
    killAll();
    await smtp?.close();
    await databases.drop();
    scratch.cleanup();
  });

  test('MAIL_BACKLOG_MAX_AGE_HOURS: 24 by default, a whole number of hours', () => {
    assert.equal(loadConfig({}).mailBacklogMaxAgeHours, 24);
    assert.equal(loadConfig({ MAIL_BACKLOG_MAX_AGE_HOURS: '72' }).mailBacklogMaxAgeHours, 72);
    for (const bad of ['-1', '1.5', 'a day', '9000']) {
      assert.throws(() => loadConfig({ MAIL_BACKLOG_MAX_AGE_HOURS: bad }), ConfigError, bad);
    }
  });

  test('the first start with SMTP_URL logs the count, sends the young ones, expires the old ones; the next start says nothing', async () => {
    const shared = await databases.create('backlog');
    let db: Database = await shared.open();
    const env = cliEnv({ DATABASE_URL: shared.url, SECRET_KEY });
    // Without SMTP_URL: three payment links, logged instead of sent.
    // No worker of its own: the rounds below are the only ones.
    const config = loadConfig({ ...env, NODE_ENV: 'test', WORKERS: 'off' } as NodeJS.ProcessEnv);
    const app = await buildApp({ config, db });
    const tenant = await app.payreq.repos.tenants.create({ name: 'Hôtel en Rade', confirmationEmail: true });
    const key = await newKey(app.payreq.repos, tenant.id);
    const guests = { fresh: 'fresh@example.com', day: 'yesterday@example.com', old: 'last.week@example.com' };
    for (const guest_email of Object.values(guests)) {
      const r = await app.inject({
        method: 'POST',
        url: '/api/payment-requests/',
        headers: key.headers,
        payload: createBody({ request_type: 'DEPOSIT', guest_email }),
      });
      assert.equal(r.statusCode, 201, r.body);
    }
    assert.equal((await sendDueEmails(app.payreq)).logged, 3);
    // Queued 23 hours ago (still sent) and 30 hours ago (too old).
    for (const [guest, hours] of [
      [guests.day, 23],
      [guests.old, 30],
    ] as const) {
      await db.query(
        `UPDATE email_outbox o SET created_at = now() - make_interval(hours => $2::int)
           FROM payment_requests p WHERE p.id = o.payment_request_id AND p.guest_email = $1`,
        [guest, hours],
      );
    }
    await app.close();
    // PGlite admits one process per directory: closed before the service opens it.
    await db.close();

    const port = await freePort();
    const serve = await ServeProcess.start(
      { ...env, SMTP_URL: smtp.url, PORT: String(port), LOG_LEVEL: 'info' },
      scratch.dir,
    );
    try {
      const deadline = Date.now() + 60_000;
      while (smtp.messages.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const to = smtp.messages.flatMap((m) => m.envelopeTo).sort();
      assert.deepEqual(to, [guests.fresh, guests.day].sort(), 'the two younger than 24 hours');
    } finally {
      // A graceful stop flushes the log: every line it wrote is in, those about the start first.
      assert.equal(await serve.stop(), 0);
    }
    const line = serve.stdout.split('\n').find((l) => BACKLOG_LINE.test(l));
    assert.ok(line, `the log says how many:\n${serve.stdout}`);
    const logged = JSON.parse(line) as { sending: number; expired: number; maxAgeHours: number };
    assert.deepEqual([logged.sending, logged.expired, logged.maxAgeHours], [2, 1, 24]);
    assert.ok(!smtp.messages.some((m) => m.envelopeTo.includes(guests.old)), 'the old one is not sent');

    db = await shared.open();
    try {
      const rows = await db.query<{ guest_email: string; status: string; last_error: string | null }>(
        `SELECT p.guest_email, o.status, o.last_error FROM email_outbox o
           JOIN payment_requests p ON p.id = o.payment_request_id ORDER BY p.guest_email`,
      );
      assert.deepEqual(
        rows.rows.map((r) => [r.guest_email, r.status]),
        [
          [guests.fresh, 'sent'],
          [guests.old, 'expired'],
          [guests.day, 'sent'],
        ],
      );
      assert.match(rows.rows[1]?.last_error ?? '', /queued more than 24 h before SMTP_URL was set/);
      const jobs = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM jobs WHERE kind = 'mail'");
      assert.equal(jobs.rows[0]?.n, 0, 'nothing left in the queue');
    } finally {
      await db.close();
    }

    // Nothing piled up any more: the next start has nothing to say, and sends nothing again.
    const again = await ServeProcess.start(
      { ...env, SMTP_URL: smtp.url, PORT: String(await freePort()), LOG_LEVEL: 'info' },
      scratch.dir,
    );
    assert.equal(await again.stop(), 0);
    assert.match(again.stdout, /"msg":"Server listening at/, 'its log, flushed by the stop');
    assert.ok(!BACKLOG_LINE.test(again.stdout), again.stdout);
    assert.equal(smtp.messages.length, 2);
  });
});
