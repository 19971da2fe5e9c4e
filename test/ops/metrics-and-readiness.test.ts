import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runDueJobs } from '../../src/jobs/index.ts';
import { runQueuedJobs } from '../helpers/scheduled-runs.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

const TOKEN = 'metrics-token-9f8e7d6c5b4a';

/** The value of one sample line of the exposition text, or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) continue;
    return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe(`/readyz and /metrics (${ENGINE})`, () => {
  let t: TestApp;
  let noToken: TestApp;
  before(async () => {
    t = await startTestApp({ env: { METRICS_TOKEN: TOKEN } });
    noToken = await startTestApp();
  });
  after(async () => {
    await t.close();
    await noToken.close();
  });

  const scrape = async () => {
    const r = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(r.statusCode, 200, r.body);
    assert.match(String(r.headers['content-type']), /^text\/plain/);
    return r.body;
  };

  test('/readyz: ready while the database answers and every migration is applied; 503 with Retry-After otherwise', async () => {
    const ok = await t.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.deepEqual(ok.json(), { status: 'ready', checks: { database: 'ok', migrations: 'current' } });
    // As if this version shipped a migration the database has not run.
    const last = await t.db.query<{ name: string }>('SELECT max(name) AS name FROM schema_migrations');
    const name = last.rows[0]?.name as string;
    await t.db.query('DELETE FROM schema_migrations WHERE name = $1', [name]);
    try {
      const pending = await t.app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(pending.statusCode, 503);
      assert.ok(Number(pending.headers['retry-after']) > 0);
      assert.deepEqual(pending.json(), {
        status: 'unavailable',
        checks: { database: 'ok', migrations: 'pending', pending_migrations: [name] },
      });
    } finally {
      await t.db.query('INSERT INTO schema_migrations (name) VALUES ($1)', [name]);
    }
    assert.equal((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
  });

  test('/metrics needs the bearer token; without METRICS_TOKEN it does not exist', async () => {
    assert.equal((await noToken.app.inject({ method: 'GET', url: '/metrics' })).statusCode, 404);
    for (const authorization of [undefined, 'Bearer wrong-token-wrong-token', `Basic ${TOKEN}`, `Bearer ${TOKEN}x`]) {
      const r = await t.app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });
      assert.equal(r.statusCode, 401, String(authorization));
    }
    await scrape();
  });

  test('requests by route pattern and status with latency; provider calls by operation and outcome', async () => {
    const { uuid } = await createRequest(t, { reservation_ref: 'METRICS-1' });
    await t.call({ method: 'GET', url: `/api/payment-requests/${uuid}/` });
    // The guest page asks the provider to prepare the payment.
    assert.equal((await t.app.inject({ method: 'GET', url: `/payment/${uuid}/` })).statusCode, 200);
    // A capture the provider knows nothing about: an outcome other than ok.
    const provider = t.app.payreq.providers.byName('sandbox');
    assert.ok(provider);
    await provider
      .capture({
        orderId: uuid,
        reference: 'X',
        currency: 'EUR',
        idempotencyKey: `metrics-${uuid}`,
        transactionId: 'unknown',
        amountCents: 100,
      })
      .catch(() => undefined);
    const text = await scrape();
    const created = { method: 'POST', route: '/api/payment-requests/', status_code: '201' };
    assert.ok((sample(text, 'payreq_http_request_duration_seconds_count', created) ?? 0) >= 1, text);
    const detail = { method: 'GET', route: '/api/payment-requests/:uuid/', status_code: '200' };
    assert.equal(sample(text, 'payreq_http_request_duration_seconds_count', detail), 1);
    assert.doesNotMatch(text, new RegExp(uuid), 'one series per route, never per uuid');
    const started = { provider: 'sandbox', operation: 'start_guest_payment', outcome: 'ok' };
    assert.ok((sample(text, 'payreq_provider_call_duration_seconds_count', started) ?? 0) >= 1, text);
    const captures = text
      .split('\n')
      .filter((l) => l.startsWith('payreq_provider_call_duration_seconds_count') && l.includes('operation="capture"'));
    assert.equal(captures.length, 1, text);
    assert.doesNotMatch(captures[0] ?? '', /outcome="ok"/);
  });

  test('refused holds are counted by their reason', async () => {
    const provider = t.app.payreq.providers.byName('sandbox');
    assert.ok(provider);
    const holdOn = async (card: string) => {
      const { uuid } = await createRequest(t, { request_type: 'IMPRINT', reservation_ref: `METRICS-${card}` });
      const token = `tok_metrics_${uuid}`;
      await t.db.query(
        'INSERT INTO sandbox_tokens (token, card_number, exp_month, exp_year) VALUES ($1, $2, 12, 2031)',
        [token, card],
      );
      await provider
        .silentHold({
          orderId: uuid,
          reference: 'X',
          currency: 'EUR',
          idempotencyKey: `m-${uuid}`,
          cardToken: token,
          amountCents: 100,
        })
        .catch(() => undefined);
    };
    await holdOn('4000000000009995');
    await holdOn('4000000000009995');
    await holdOn('4000000000009979');
    const text = await scrape();
    const declines = (reason: string) =>
      sample(text, 'payreq_provider_declines_total', { provider: 'sandbox', operation: 'silent_hold', reason });
    assert.equal(declines('insufficient_funds'), 2, text);
    assert.equal(declines('lost_or_stolen'), 1, text);
  });

  test('IPN outcomes are counted', async () => {
    for (let i = 0; i < 2; i++) {
      await t.app.inject({
        method: 'POST',
        url: '/ipn/sandbox/',
        payload: '{}',
        headers: { 'content-type': 'application/json' },
      });
    }
    const text = await scrape();
    assert.equal(sample(text, 'payreq_ipn_notifications_total', { provider: 'sandbox', outcome: 'refused' }), 2);
  });

  test('backlogs read from the database at scrape time: e-mails pending, ledger rows in doubt', async () => {
    const tenant = await t.newTenant('Mail backlog hotel');
    await t.db.query('UPDATE tenants SET confirmation_email = true WHERE id = $1', [tenant.tenantId]);
    const before = sample(await scrape(), 'payreq_email_outbox_pending') ?? -1;
    await createRequest(t, { reservation_ref: 'MAIL-1' }, tenant);
    await createRequest(t, { reservation_ref: 'MAIL-2' }, tenant);
    let text = await scrape();
    assert.equal(sample(text, 'payreq_email_outbox_pending'), before + 2);
    assert.ok((sample(text, 'payreq_email_outbox_oldest_pending_seconds') ?? -1) >= 0);
    assert.equal(sample(text, 'payreq_database_up'), 1);

    // The ledger table may not exist in this schema yet: the gauge reads 0 rather than failing.
    const present = await t.db.query<{ p: boolean }>("SELECT to_regclass('money_ledger') IS NOT NULL AS p");
    if (present.rows[0]?.p) return;
    assert.equal(sample(text, 'payreq_ledger_in_doubt'), 0);
    await t.db.query('CREATE TABLE money_ledger (id serial PRIMARY KEY, state text NOT NULL)');
    try {
      await t.db.query("INSERT INTO money_ledger (state) VALUES ('in_doubt'), ('in_doubt'), ('succeeded')");
      text = await scrape();
      assert.equal(sample(text, 'payreq_ledger_in_doubt'), 2);
    } finally {
      await t.db.query('DROP TABLE money_ledger');
    }
  });

  test('scheduled job runs and their durations, by job and outcome', async () => {
    await t.db.query(
      "UPDATE job_schedules SET enabled = true, next_run_at = now() - interval '1 minute' WHERE job IN ('expire_payment_requests', 'reconcile_claims')",
    );
    assert.equal((await runDueJobs(t.app.payreq, new Date())).length, 2);
    await runQueuedJobs(t.app.payreq, {
      only: ['expire_payment_requests', 'reconcile_claims'],
      jobs: {
        expire_payment_requests: async () => ({ done: 1 }),
        reconcile_claims: async () => {
          throw new Error('provider on fire');
        },
      },
      onRun: (r) => t.app.payreq.metrics.jobRun(r.job, r.outcome, r.seconds),
    });
    const text = await scrape();
    const runs = { job: 'expire_payment_requests', outcome: 'ok' };
    assert.equal(sample(text, 'payreq_job_run_duration_seconds_count', runs), 1, text);
    const failed = { job: 'reconcile_claims', outcome: 'failed' };
    assert.equal(sample(text, 'payreq_job_run_duration_seconds_count', failed), 1, text);
  });
});
