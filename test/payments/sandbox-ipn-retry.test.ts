import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { deliveryPolicy, retryDelay } from '../../src/providers/sandbox/ipn-delivery.ts';
import { jobStore } from '../../src/queue/index.ts';
import { freePort, type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { checkoutForm, detail, eventually, submitCard } from '../helpers/sandbox-checkout.ts';
import { createRequest, ENGINE } from '../helpers/test-app.ts';

/**
 * A service that is down until start(): a port nobody listens on, then a plain HTTP relay on
 * that port to the real app (the service coming back). `answer` lets it fail with a status.
 */
async function flakyService(target: string) {
  const port = await freePort();
  let server: Server | undefined;
  const seen: number[] = [];
  const state = { answer: 0 };
  return {
    url: `http://127.0.0.1:${port}/ipn/sandbox/`,
    seen,
    state,
    async start() {
      server = createServer(async (req, res) => {
        const chunks: Buffer[] = [];
        for await (const c of req) chunks.push(c as Buffer);
        seen.push(Date.now());
        if (state.answer) {
          res.writeHead(state.answer).end();
          return;
        }
        const r = await fetch(`${target}/ipn/sandbox/`, {
          method: 'POST',
          headers: {
            'content-type': String(req.headers['content-type']),
            'x-sandbox-signature': String(req.headers['x-sandbox-signature']),
          },
          body: Buffer.concat(chunks),
        });
        res.writeHead(r.status, { 'content-type': 'application/json' }).end(await r.text());
      });
      await new Promise<void>((resolve) => server?.listen(port, '127.0.0.1', resolve));
    },
    async stop() {
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    },
  };
}

describe(`sandbox IPN retries (${ENGINE})`, () => {
  let t: ListeningApp;
  before(async () => {
    t = await startListeningApp({ env: { SANDBOX_IPN_RETRY_MS: '50', WORKERS: 'on' } });
  });
  after(async () => {
    await t.close();
  });

  test('backoff doubles from the base, capped, over a bounded number of attempts', () => {
    const p = deliveryPolicy(1000);
    assert.deepEqual(
      [1, 2, 3, 4].map((a) => retryDelay(p, a)),
      [1000, 2000, 4000, 8000],
    );
    assert.equal(retryDelay(p, 40), p.maxDelayMs);
    assert.ok(p.maxAttempts > 3 && p.maxAttempts <= 20);
  });

  test('the service down at the first delivery: the guest is redirected anyway, and the loop delivers later', async () => {
    const service = await flakyService(t.baseUrl);
    try {
      const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 99 });
      const form = await checkoutForm(t, c.uuid, { notifyUrl: service.url });
      const r = await submitCard(form, { number: '4242424242424242' });
      assert.equal(r.status, 303, 'the guest is not kept waiting for a service that is down');
      assert.equal((await detail(t, c.uuid)).status, 'NOT_INITIATED');
      const pending = await t.db.query<{ attempts: number; last_error: string | null; delivered_at: Date | null }>(
        'SELECT attempts, last_error, delivered_at FROM sandbox_notifications WHERE url = $1',
        [service.url],
      );
      assert.equal(pending.rows.length, 1);
      assert.equal(pending.rows[0]?.delivered_at, null);
      assert.ok(pending.rows[0]?.last_error, 'the failure is recorded');

      // Up again, but answering 503 for a while: still a failure, retried.
      service.state.answer = 503;
      await service.start();
      await eventually(async () => (service.seen.length >= 2 ? true : undefined), 'two failed retries');
      assert.equal((await detail(t, c.uuid)).status, 'NOT_INITIATED');
      const gaps = service.seen.slice(1).map((s, i) => s - (service.seen[i] as number));
      assert.ok(
        gaps.every((g) => g >= 40),
        `retries are spaced by the backoff (${gaps.join(', ')} ms)`,
      );

      service.state.answer = 0;
      await eventually(async () => ((await detail(t, c.uuid)).status === 'CAPTURED' ? true : undefined), 'CAPTURED');
      const done = await eventually(async () => {
        const row = (
          await t.db.query<{ attempts: number; delivered_at: Date | null }>(
            'SELECT attempts, delivered_at FROM sandbox_notifications WHERE url = $1',
            [service.url],
          )
        ).rows[0];
        return row?.delivered_at ? row : undefined;
      }, 'the notification marked delivered');
      assert.ok(done.attempts >= 3, `attempts: ${done.attempts}`);
      const attemptsThen = done.attempts;
      await new Promise((r) => setTimeout(r, 200));
      const later = await t.db.query<{ attempts: number }>(
        'SELECT attempts FROM sandbox_notifications WHERE url = $1',
        [service.url],
      );
      assert.equal(later.rows[0]?.attempts, attemptsThen, 'a delivered notification is not sent again');
    } finally {
      await service.stop();
    }
  });

  test('concurrent claims never take the same attempt twice', async () => {
    const queue = jobStore(t.db);
    await t.db.query(
      `INSERT INTO sandbox_notifications (url, body, attempts, next_attempt_at)
       SELECT 'http://127.0.0.1:9/claim-test', '{}', 0, now() - interval '1 second' FROM generate_series(1, 30)`,
    );
    // A long lease keeps the running worker (and each other) off the jobs claimed here.
    const claims = await Promise.all(
      [1, 2, 3, 4, 5].map((n) =>
        queue.claim('sandbox_notification', { limit: 10, leaseMs: 60_000, owner: `test-${n}` }),
      ),
    );
    const ids = claims.flat().map((j) => j.ref);
    assert.equal(new Set(ids).size, ids.length, 'no job claimed twice');
    const mine = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM sandbox_notifications n
         LEFT JOIN jobs j ON j.kind = 'sandbox_notification' AND j.ref = n.id::text
        WHERE n.url = 'http://127.0.0.1:9/claim-test' AND (j.id IS NULL OR j.attempts >= 1)`,
    );
    assert.equal(mine.rows[0]?.n, 30, 'every due job was claimed, by the worker or here');
    await t.db.query("DELETE FROM jobs WHERE kind = 'sandbox_notification' AND ref = ANY($1::text[])", [ids]);
    await t.db.query("DELETE FROM sandbox_notifications WHERE url = 'http://127.0.0.1:9/claim-test'");
  });

  test('WORKERS=off: no retry loop; only the first attempt, made while the guest waits', async () => {
    // A second app on its own database, the same retry delay, workers off. This file's app,
    // workers on, is the witness: once its loop has retried twice, the other one's would
    // have had the same time to retry, had it been running.
    const quiet = await startListeningApp({ env: { SANDBOX_IPN_RETRY_MS: '50', WORKERS: 'off' } });
    const witness = await flakyService(t.baseUrl);
    const silent = await flakyService(quiet.baseUrl);
    try {
      witness.state.answer = 503;
      silent.state.answer = 503;
      await witness.start();
      await silent.start();
      const a = await createRequest(t, { request_type: 'DEPOSIT', amount: 5 });
      const q = await createRequest(quiet, { request_type: 'DEPOSIT', amount: 5 });
      assert.equal(
        (await submitCard(await checkoutForm(quiet, q.uuid, { notifyUrl: silent.url }), { number: '4242424242424242' }))
          .status,
        303,
      );
      assert.equal(
        (await submitCard(await checkoutForm(t, a.uuid, { notifyUrl: witness.url }), { number: '4242424242424242' }))
          .status,
        303,
      );
      assert.equal(silent.seen.length, 1, 'the first attempt is made at once, workers or not');
      // The witness's notification was made after this one: it has been due no longer.
      await eventually(async () => (witness.seen.length >= 3 ? true : undefined), 'the witness loop retrying twice');
      assert.equal(silent.seen.length, 1, 'no retry without workers');
      const row = await quiet.db.query<{ attempts: number; delivered_at: Date | null }>(
        'SELECT attempts, delivered_at FROM sandbox_notifications WHERE url = $1',
        [silent.url],
      );
      assert.deepEqual(row.rows, [{ attempts: 1, delivered_at: null }], 'left for an instance with workers');
    } finally {
      await witness.stop();
      await silent.stop();
      await quiet.close();
    }
  });
});
