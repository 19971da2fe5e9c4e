import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { repositories } from '../../src/db/index.ts';
import { freePort, ServeProcess } from '../cli/payreq-process.ts';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.ts';
import { commandMissing, redisMissing } from '../helpers/prerequisites.ts';
import { createBody, newTenant, type TenantWithKey } from '../helpers/test-app.ts';
import { type Answer, httpsClient, NGINX, type Nginx, renderSite, selfSignedCertificate, startNginx } from './nginx.ts';

// Two real `payreq serve` processes on one PostgreSQL database and one Redis, behind nginx
// ending TLS with docs/nginx.conf.example, under a bounded mixed load; one instance is killed
// half-way. Everything listens on 127.0.0.1 only.

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** The load's length; the same load shortened (PAYREQ_NGINX_LOAD_MS) is only for working on the test. */
const LOAD_MS = Number(process.env.PAYREQ_NGINX_LOAD_MS) || 60_000;
/** Clients sending at once, each waiting for its answer before the next request. */
const CLIENTS = 6;
/** The guest page allows 30 views a minute per address (every client here is 127.0.0.1). */
const MAX_PAYMENTS = 12;
const MAX_GUEST_VIEWS = 6;

const skip =
  (ENGINE !== 'postgres' && 'PostgreSQL only: several instances share a database server, which PGlite is not') ||
  commandMissing(NGINX, ['-v']) ||
  commandMissing('openssl', ['version']) ||
  (await redisMissing(REDIS_URL));

interface Sent {
  op: string;
  status: number;
  ms: number;
  start: number;
}

/** The hidden fields and action of the card form on the guest page. */
function cardForm(html: string): { action: string; fields: Record<string, string> } {
  const decode = (s: string) =>
    s
      .replaceAll('&quot;', '"')
      .replaceAll('&#39;', "'")
      .replaceAll('&lt;', '<')
      .replaceAll('&gt;', '>')
      .replaceAll('&amp;', '&');
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  assert.ok(action, 'the guest page has a card form');
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[decode(m[1] as string)] = decode(m[2] as string);
  }
  return { action: decode(action), fields };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
}

describe(`two instances behind nginx with TLS, one killed under load (${ENGINE})`, () => {
  let dir: string;
  let testDb: TestDatabase | undefined;
  let nginx: Nginx | undefined;
  const instances: ServeProcess[] = [];
  let base: string;
  let cert: string;
  let load: TenantWithKey;
  let limited: TenantWithKey;
  let dueSlots: { job: string; slot: Date }[] = [];
  let ports: [number, number];

  before(async () => {
    if (skip) return;
    dir = mkdtempSync(path.join(tmpdir(), 'payreq-nginx-'));
    testDb = await createTestDatabase();
    const repos = repositories(testDb.db);
    load = await newTenant(repos, 'Load hotel', { createRateLimit: 0 });
    limited = await newTenant(repos, 'Limited hotel', { createRateLimit: 5 });
    // Every schedule due now: both instances find the same slots at start.
    dueSlots = (
      await testDb.db.query<{ job: string; slot: Date }>(
        "UPDATE job_schedules SET next_run_at = date_trunc('second', now()) - interval '1 minute' RETURNING job, next_run_at AS slot",
      )
    ).rows;
    assert.ok(dueSlots.length >= 3, 'the default schedules exist');

    const tls = selfSignedCertificate(dir);
    cert = tls.cert;
    ports = [await freePort(), await freePort()];
    const httpsPort = await freePort();
    base = `https://127.0.0.1:${httpsPort}`;
    const env = (port: number): NodeJS.ProcessEnv => ({
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: testDb?.url,
      REDIS_URL,
      PUBLIC_BASE_URL: base,
      TRUST_PROXY: '127.0.0.1',
      WORKERS: 'on',
      SECRET_KEY: randomBytes(48).toString('base64'),
      SANDBOX_IN_PRODUCTION: 'true',
      SANDBOX_IPN_RETRY_MS: '200',
      // The sandbox posts its notifications to PUBLIC_BASE_URL, through nginx and its certificate.
      NODE_EXTRA_CA_CERTS: cert,
    });
    // One SECRET_KEY for both: they open each other's sealed tokens and signed forms.
    const shared = env(0).SECRET_KEY;
    for (const port of ports) instances.push(await ServeProcess.start({ ...env(port), SECRET_KEY: shared }, dir));
    nginx = await startNginx(
      dir,
      renderSite({ instances: ports, httpsPort, httpPort: await freePort(), cert: tls.cert, key: tls.key }),
      httpsPort,
      cert,
    );
  });

  after(async () => {
    for (const s of instances) await s.stop();
    await nginx?.stop();
    await testDb?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('mixed load for a minute, one instance killed half-way: no lost or doubled work', {
    skip,
    timeout: 300_000,
  }, async (t) => {
    assert.ok(testDb && nginx);
    const db = testDb.db;
    const client = httpsClient(base, cert, CLIENTS * 2);
    const json = { 'content-type': 'application/json' };
    const api = (tenant: TenantWithKey) => ({ ...tenant.headers, ...json });

    // Rate limits are shared: 8 creates spread over both instances by nginx, 5 allowed a minute.
    const limitCodes: number[] = [];
    for (let i = 0; i < 8; i++) {
      const r = await client.call('POST', '/api/payment-requests/', JSON.stringify(createBody()), api(limited));
      limitCodes.push(r.status);
    }
    assert.deepEqual(
      limitCodes.sort(),
      [201, 201, 201, 201, 201, 429, 429, 429],
      'one limit for both instances (Redis)',
    );
    const served = new Set(nginx.accessLog().map((e) => e.upstream));
    assert.deepEqual([...served].sort(), ports.map((p) => `127.0.0.1:${p}`).sort(), 'nginx used both instances');

    const sent: Sent[] = [];
    const created: { uuid: string; reference: string }[] = [];
    const paid: { uuid: string; amount: number }[] = [];
    let payments = 0;
    let guestViews = 0;
    let transportErrors = 0;
    const t0 = Date.now();
    const killAt = t0 + LOAD_MS / 2;
    let killedAt = 0;
    // A killed process holds its sockets until the kernel has ended it: requests nginx sends it
    // until then are in flight on it too.
    let goneAt = 0;
    const record = (op: string, r: Answer, start: number) => {
      sent.push({ op, status: r.status, ms: r.ms, start });
      return r;
    };
    const call = async (op: string, method: string, url: string, body?: string, headers?: Record<string, string>) => {
      const start = Date.now();
      try {
        return record(op, await client.call(method, url, body, headers), start);
      } catch {
        transportErrors++;
        return undefined;
      }
    };
    const create = async (overrides: Record<string, unknown> = {}) => {
      const r = await call(
        'create',
        'POST',
        '/api/payment-requests/',
        JSON.stringify(createBody({ reservation_ref: `RES-${created.length % 50}`, ...overrides })),
        api(load),
      );
      if (r?.status !== 201) return undefined;
      const c = JSON.parse(r.body) as { uuid: string; reference: string; payment_link: string };
      created.push(c);
      return c;
    };
    const pick = () => created[Math.floor(Math.random() * created.length)];

    const pay = async () => {
      payments++;
      const amount = 10 + Math.floor(Math.random() * 490);
      const c = await create({ request_type: 'DEPOSIT', amount });
      if (!c) return;
      const page = await call('guest page', 'GET', new URL(c.payment_link, base).pathname);
      if (page?.status !== 200) return;
      const form = cardForm(page.body);
      const body = new URLSearchParams({
        ...form.fields,
        card_number: '4242424242424242',
        exp_month: '12',
        exp_year: String(new Date().getUTCFullYear() + 1),
        cvv: '123',
      }).toString();
      const r = await call('sandbox payment', 'POST', new URL(form.action).pathname, body, {
        'content-type': 'application/x-www-form-urlencoded',
      });
      if (r?.status === 303) paid.push({ uuid: c.uuid, amount: amount * 100 });
    };

    const step = async () => {
      const roll = Math.random();
      if (roll < 0.05 && payments < MAX_PAYMENTS) return pay();
      if (roll < 0.3 || created.length === 0) return void (await create());
      const c = pick();
      if (!c) return;
      if (roll < 0.5)
        return void (await call('detail', 'GET', `/api/payment-requests/${c.uuid}/`, undefined, load.headers));
      if (roll < 0.65)
        return void (await call('list', 'GET', '/api/payment-requests/?limit=20', undefined, load.headers));
      if (roll < 0.8) {
        return void (await call(
          'statuses',
          'GET',
          '/api/payment-requests/statuses/?refs=RES-1,RES-2,RES-3',
          undefined,
          load.headers,
        ));
      }
      if (roll < 0.95) {
        const fresh = await create({ request_type: 'IMPRINT' });
        if (fresh) await call('cancel', 'POST', `/api/payment-requests/${fresh.uuid}/cancel/`, undefined, load.headers);
        return;
      }
      if (guestViews < MAX_GUEST_VIEWS) {
        guestViews++;
        await call('guest page', 'GET', `/payment/${c.uuid}/`);
      }
    };

    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (Date.now() - t0 < LOAD_MS) {
          if (!killedAt && Date.now() >= killAt) {
            killedAt = Date.now();
            instances[1]?.child.kill('SIGKILL');
            void instances[1]?.exited.then(() => {
              goneAt = Date.now();
            });
          }
          await step();
        }
      }),
    );
    const elapsed = (Date.now() - t0) / 1000;
    client.close();
    assert.ok(killedAt > 0, 'the second instance was killed');
    await instances[1]?.exited;
    assert.ok(goneAt > 0);

    // No 5xx but the killed instance's requests in flight at the kill.
    const victim = `127.0.0.1:${ports[1]}`;
    const log = nginx.accessLog();
    const serverErrors = log.filter((e) => e.status >= 500);
    const excused = serverErrors.filter(
      (e) =>
        e.upstream.split(', ').includes(victim) &&
        (e.end - e.seconds) * 1000 <= goneAt + 5 &&
        e.end * 1000 >= killedAt - 5,
    );
    assert.deepEqual(serverErrors, excused, 'a 5xx that was not the killed instance in flight');
    assert.ok(excused.length <= CLIENTS + MAX_PAYMENTS, `${excused.length} requests in flight at the kill`);
    assert.equal(transportErrors, 0, 'nginx answered every request');

    // Every 201 is in the database exactly once, and references are unique.
    const rows = (
      await db.query<{ id: string; reference: string }>(
        'SELECT id::text, reference FROM payment_requests WHERE tenant_id = $1',
        [load.tenantId],
      )
    ).rows;
    const byId = new Map(rows.map((r) => [r.id, r.reference]));
    for (const c of created) assert.equal(byId.get(c.uuid), c.reference, `201 ${c.reference} is stored as answered`);
    assert.equal(new Set(created.map((c) => c.uuid)).size, created.length, 'no uuid answered twice');
    assert.equal(new Set(rows.map((r) => r.reference)).size, rows.length, 'references are unique');

    // Every payment's notification is applied (the killed instance's ones by the survivor's retries).
    const deadline = Date.now() + 60_000;
    let pending = -1;
    while (Date.now() < deadline) {
      const r = await db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM sandbox_notifications WHERE delivered_at IS NULL',
      );
      pending = r.rows[0]?.n ?? -1;
      if (pending === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(pending, 0, 'every sandbox notification delivered');
    assert.ok(paid.length > 0, 'some payments were made');
    for (const p of paid) {
      const r = await db.query<{ status: string; amount_captured: number }>(
        'SELECT status, amount_captured FROM payment_requests WHERE id = $1',
        [p.uuid],
      );
      assert.deepEqual(r.rows[0], { status: 'CAPTURED', amount_captured: p.amount }, `payment ${p.uuid}`);
    }

    // The provider's ledger matches payreq's amounts, request by request.
    const ledger = await db.query<{
      id: string;
      ours: number;
      theirs: number;
      ours_refunded: number;
      theirs_refunded: number;
    }>(
      `SELECT pr.id::text, pr.amount_captured AS ours, pr.amount_refunded AS ours_refunded,
              coalesce(sum(st.captured_amount), 0)::int AS theirs, coalesce(sum(st.refunded_amount), 0)::int AS theirs_refunded
         FROM payment_requests pr LEFT JOIN sandbox_transactions st ON st.order_id = pr.id
        WHERE pr.tenant_id = $1 GROUP BY pr.id`,
      [load.tenantId],
    );
    for (const row of ledger.rows) {
      assert.equal(row.ours, row.theirs, `captured amounts of ${row.id}`);
      assert.equal(row.ours_refunded, row.theirs_refunded, `refunded amounts of ${row.id}`);
    }

    // Each slot that was due when both instances started ran once.
    for (const due of dueSlots) {
      const r = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM job_runs WHERE job = $1 AND slot = $2', [
        due.job,
        due.slot,
      ]);
      assert.equal(r.rows[0]?.n, 1, `${due.job} at ${due.slot.toISOString()}`);
    }

    const ms = sent.map((s) => s.ms).sort((a, b) => a - b);
    const byStatus: Record<string, number> = {};
    for (const s of sent) byStatus[s.status] = (byStatus[s.status] ?? 0) + 1;
    t.diagnostic(
      `${sent.length} requests in ${elapsed.toFixed(1)} s: ${(sent.length / elapsed).toFixed(1)}/s, p50 ${percentile(ms, 50).toFixed(1)} ms, p99 ${percentile(ms, 99).toFixed(1)} ms; statuses ${JSON.stringify(byStatus)}; ${excused.length} 5xx in flight at the kill (${goneAt - killedAt} ms to die); ${created.length} created, ${paid.length} paid`,
    );
  });
});
