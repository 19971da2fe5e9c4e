import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { repositories } from '../../src/db/index.ts';
import { singleKey } from '../../src/secrets/index.ts';
import { createEndpoint } from '../../src/webhooks/index.ts';
import { ServeProcess } from '../cli/payreq-process.ts';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.ts';
import { type Pgbouncer, pgbouncerMissing, startPgbouncer } from '../helpers/pgbouncer.ts';
import { createBody, newTenant, type TenantWithKey } from '../helpers/test-app.ts';
import { type GatedReceiver, startGatedReceiver } from './webhook-receiver-gate.ts';

// Two real `payreq serve` processes whose DATABASE_URL is Debian's PgBouncer in transaction
// pooling (few server connections: consecutive statements land on different ones), with
// DATABASE_DIRECT_URL the server itself. An API load (keyed creates, cancels, reads, the
// event feed) makes webhook deliveries to four endpoints; one instance is killed with SIGKILL
// while it is sending some. Every delivery must reach its endpoint exactly once.

/** API operations in all; the kill comes half-way (PAYREQ_POOLER_LOAD_OPS, to work on the test). */
const LOAD_OPS = Number(process.env.PAYREQ_POOLER_LOAD_OPS) || 400;
const CLIENTS = 4;
const ENDPOINTS = 4;
/** How long the receiver takes to answer: deliveries are in flight when the instance dies. */
const ANSWER_AFTER_MS = 40;
/** The webhook kind's lease (src/webhooks/delivery-worker.ts): the dead instance's deliveries wait for it. */
const WEBHOOK_LEASE_MS = 60_000;

const skip =
  (ENGINE !== 'postgres' && 'PostgreSQL only: a pooler stands before a database server, which PGlite is not') ||
  pgbouncerMissing();

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`still waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

interface Answer {
  status: number;
  body: string;
}

describe(`two instances through PgBouncer in transaction pooling, one killed mid-run (${ENGINE})`, () => {
  let dir: string;
  let bouncer: Pgbouncer | undefined;
  let testDb: TestDatabase | undefined;
  let receiver: GatedReceiver | undefined;
  const instances: ServeProcess[] = [];
  let tenant: TenantWithKey;
  /** Endpoint number (its path) by endpoint id. */
  const endpointNumber = new Map<string, number>();
  const ports: number[] = [];

  before(async () => {
    if (skip) return;
    dir = mkdtempSync(path.join(tmpdir(), 'payreq-pgbouncer-'));
    bouncer = await startPgbouncer(process.env.TEST_POSTGRES_URL ?? '', { poolSize: 8 });
    testDb = await createTestDatabase();
    receiver = await startGatedReceiver(ANSWER_AFTER_MS);
    const repos = repositories(testDb.db);
    tenant = await newTenant(repos, 'Pooled hotel', { createRateLimit: 0 });
    const secretKey = randomBytes(48).toString('base64');
    for (let n = 1; n <= ENDPOINTS; n++) {
      const e = await createEndpoint(
        repos,
        singleKey(secretKey),
        { production: false, allowPrivate: true },
        { tenantId: tenant.tenantId, url: receiver.url(n), events: [] },
      );
      endpointNumber.set(e.id, n);
    }
    const name = new URL(testDb.url).pathname.slice(1);
    const env = (host: string): NodeJS.ProcessEnv => ({
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      // A port of the system's choosing, read from the banner: none taken meanwhile by another.
      PORT: '0',
      // Names the queue's lease owner: `<HOSTNAME>:<pid>`.
      HOSTNAME: host,
      DATABASE_URL: bouncer?.url(name),
      DATABASE_DIRECT_URL: testDb?.url,
      WORKERS: 'on',
      SECRET_KEY: secretKey,
      WEBHOOKS_ALLOW_PRIVATE: 'on',
      WEBHOOK_RETRY_BASE_MS: '200',
    });
    for (const host of ['survivor', 'victim']) {
      const s = await ServeProcess.start(env(host), dir);
      instances.push(s);
      ports.push(Number(/payreq listening on http:\/\/127\.0\.0\.1:(\d+) /.exec(s.stderr)?.[1]));
    }
  });

  after(async () => {
    for (const s of instances) await s.stop();
    await receiver?.close();
    await testDb?.drop();
    await bouncer?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('keyed creates, cancels, reads and the feed; webhooks sent; one instance killed while sending: none lost or doubled', {
    skip,
    timeout: 300_000,
  }, async (t) => {
    assert.ok(testDb && bouncer && receiver);
    const db = testDb.db;
    const gate = receiver;
    const [survivor, victim] = instances as [ServeProcess, ServeProcess];
    assert.match(survivor.stderr, /\(test, postgres through a pooler\)/, 'the banner says the pooler is in use');
    assert.ok(ports.length === 2 && ports.every((p) => p > 0), `the instances listen on ${ports}`);

    let victimDead = false;
    let rr = 0;
    const statuses: Record<number, number> = {};
    let transportErrors = 0;
    /** One call to an instance (round robin while both live); a 5xx or a cut connection is tried again, as an integrator would. */
    const call = async (method: string, url: string, body?: unknown, key?: string): Promise<Answer> => {
      for (let attempt = 1; ; attempt++) {
        const port = victimDead ? ports[0] : ports[rr++ % 2];
        try {
          const r = await fetch(`http://127.0.0.1:${port}${url}`, {
            method,
            headers: {
              ...tenant.headers,
              ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
              ...(key ? { 'idempotency-key': key } : {}),
            },
            body: body === undefined ? undefined : JSON.stringify(body),
          });
          const text = await r.text();
          statuses[r.status] = (statuses[r.status] ?? 0) + 1;
          if (r.status < 500) return { status: r.status, body: text };
        } catch {
          transportErrors++;
        }
        assert.ok(attempt < 20, `${method} ${url} kept failing`);
        await new Promise((r) => setTimeout(r, 50 * attempt));
      }
    };

    const created = new Map<string, string>(); // Idempotency-Key -> uuid
    const cancelled = new Set<string>();
    let ops = 0;
    let killing: Promise<void> | undefined;
    let victimHeld = 0;

    /** The deliveries the victim holds the lease of, as `endpoint:event`. */
    const victimLeases = async () =>
      new Set(
        (
          await db.query<{ endpoint_id: string; event_id: string }>(
            `SELECT d.endpoint_id::text, d.event_id::text FROM jobs j JOIN webhook_deliveries d ON d.id::text = j.ref
              WHERE j.kind = 'webhook_delivery' AND j.lease_owner LIKE 'victim:%' AND j.lease_until > now()`,
          )
        ).rows.map((r) => `${endpointNumber.get(r.endpoint_id)}:${r.event_id}`),
      );

    /**
     * Kills the victim while some deliveries it sent are at the receiver, unanswered, and none it
     * had answered is still unrecorded: then each delivery is either answered once, or never.
     */
    const kill = async () => {
      for (let tries = 1; ; tries++) {
        await until('the victim sends deliveries', async () => (await victimLeases()).size > 0);
        gate.hold();
        let ready = false;
        const end = Date.now() + 3000;
        while (!ready && Date.now() < end) {
          const leases = await victimLeases();
          const open = new Set(
            gate
              .held()
              .filter((h) => !h.closed)
              .map((h) => h.key),
          );
          ready = leases.size > 0 && [...leases].every((k) => open.has(k));
          if (!ready) await new Promise((r) => setTimeout(r, 10));
        }
        if (ready) break;
        // Its deliveries ended before the receiver held one: again, a moment later.
        gate.release();
        assert.ok(tries < 20, 'the victim never held a delivery at the receiver');
      }
      victimDead = true;
      victim.child.kill('SIGKILL');
      await victim.exited;
      const dead = await victimLeases();
      victimHeld = dead.size;
      // The dead instance's connections to the receiver close with it.
      await until('the killed instance hung up', () =>
        gate
          .held()
          .filter((h) => dead.has(h.key))
          .every((h) => h.closed),
      );
      gate.release();
    };

    const step = async (n: number) => {
      const roll = n % 10;
      if (roll < 5 || created.size === 0) {
        const key = `pooled-${n}`;
        const r = await call('POST', '/api/payment-requests/', createBody({ reservation_ref: `POOL-${n}` }), key);
        // A create claims its key in its own statement: one cut by the kill left nothing behind.
        assert.equal(r.status, 201, `create ${key}: ${r.status} ${r.body}`);
        const uuid = (JSON.parse(r.body) as { uuid: string }).uuid;
        assert.ok(!created.has(key) || created.get(key) === uuid);
        created.set(key, uuid);
        return;
      }
      const uuids = [...created.values()];
      const uuid = uuids[n % uuids.length] as string;
      if (roll < 7 && !cancelled.has(uuid)) {
        cancelled.add(uuid);
        const r = await call('POST', `/api/payment-requests/${uuid}/cancel/`, undefined, `cancel-${uuid}`);
        // 409: the killed instance had claimed this key for a cancel it never finished (taken
        // over after 2 minutes); the integrator reads the request instead.
        assert.ok([200, 409].includes(r.status), `cancel ${uuid}: ${r.status} ${r.body}`);
        return;
      }
      if (roll < 9) {
        const r = await call('GET', `/api/payment-requests/${uuid}/`);
        assert.equal(r.status, 200, r.body);
        return;
      }
      const r = await call('GET', '/api/events/?limit=50');
      assert.equal(r.status, 200, r.body);
    };

    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (ops < LOAD_OPS) {
          const n = ops++;
          if (n === LOAD_OPS / 2) killing = kill();
          await step(n);
        }
      }),
    );
    await killing;
    assert.ok(victimHeld > 0, 'the victim was sending deliveries when it was killed');

    // Idempotency through the pooler: a replay answers the first result, another body is a 422.
    const [firstKey, firstUuid] = [...created.entries()][0] as [string, string];
    const replay = await call(
      'POST',
      '/api/payment-requests/',
      createBody({ reservation_ref: firstKey.replace('pooled-', 'POOL-') }),
      firstKey,
    );
    assert.equal((JSON.parse(replay.body) as { uuid: string }).uuid, firstUuid, 'a replay answers the first create');
    const reused = await call('POST', '/api/payment-requests/', createBody({ reservation_ref: 'OTHER' }), firstKey);
    assert.equal(reused.status, 422);
    assert.equal((JSON.parse(reused.body) as { code: string }).code, 'idempotency_key_reused');

    // One request per key, none without one.
    const rows = (
      await db.query<{ id: string }>('SELECT id::text FROM payment_requests WHERE tenant_id = $1', [tenant.tenantId])
    ).rows;
    assert.deepEqual(rows.map((r) => r.id).sort(), [...new Set(created.values())].sort(), 'one request per key');

    // The event feed, paged through the survivor, holds every event once. It shows an event
    // once every older transaction of the server has ended (other tests' included): awaited.
    const events = (
      await db.query<{ id: number }>('SELECT id::int FROM events WHERE tenant_id = $1 ORDER BY id', [tenant.tenantId])
    ).rows.map((r) => r.id);
    let feed: number[] = [];
    await until('the feed shows every event', async () => {
      feed = [];
      for (let after = 0; ; ) {
        const r = await call('GET', `/api/events/?after=${after}&limit=100`);
        const page = JSON.parse(r.body) as { id: number }[];
        feed.push(...page.map((e) => e.id));
        if (page.length < 100) return feed.length >= events.length;
        after = page.at(-1)?.id ?? after;
      }
    });
    assert.deepEqual(
      [...feed].sort((a, b) => a - b),
      events,
      'the feed has every event once',
    );

    // Every delivery reaches its endpoint; the dead instance's after their lease ran out.
    const left = async () =>
      (
        await db.query<{ n: number }>(
          `SELECT (SELECT count(*) FROM jobs WHERE kind = 'webhook_delivery')
                + (SELECT count(*) FROM webhook_deliveries WHERE status <> 'delivered') AS n`,
        )
      ).rows[0]?.n;
    await until('every delivery delivered', async () => (await left()) === 0, WEBHOOK_LEASE_MS + 90_000);
    const deliveries = (
      await db.query<{ endpoint_id: string; event_id: string; attempts: number }>(
        'SELECT endpoint_id::text, event_id::text, attempts FROM webhook_deliveries',
      )
    ).rows;
    assert.equal(deliveries.length, events.length * ENDPOINTS, 'a delivery per event and endpoint');
    const expected = deliveries.map((d) => `${endpointNumber.get(d.endpoint_id)}:${d.event_id}`).sort();
    const lost = expected.filter((k) => !gate.accepted.has(k));
    const doubled = [...gate.accepted].filter(([, n]) => n > 1).map(([k]) => k);
    assert.deepEqual(lost, [], 'no delivery lost');
    assert.deepEqual(doubled, [], 'no delivery answered twice');
    assert.deepEqual([...gate.accepted.keys()].sort(), expected, 'nothing answered that was not a delivery');
    assert.ok(
      deliveries.filter((d) => d.attempts > 1).length >= victimHeld,
      "the killed instance's deliveries were taken over",
    );

    // What needs a session was on the server itself, nothing through the pooler.
    const servers = await bouncer.serverPorts();
    const sessions = (
      await db.query<{ port: number; query: string; state: string; idle_s: number }>(
        `SELECT client_port AS port, query, state, extract(epoch FROM now() - state_change)::float8 AS idle_s
           FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
      )
    ).rows;
    const listening = sessions.filter((s) => String(s.query).startsWith('LISTEN '));
    assert.ok(listening.length >= 1, 'the survivor listens, on a session of its own');
    for (const s of listening) assert.ok(!servers.has(Number(s.port)), `${s.query} is on a direct session`);
    // The survivor's own transactions pause between statements; the killed instance's would
    // have been paused since the kill, over a minute ago.
    assert.deepEqual(
      sessions.filter((s) => String(s.state).startsWith('idle in transaction') && s.idle_s > 10),
      [],
      'no transaction of the killed instance left open at the server',
    );
    assert.doesNotMatch(survivor.stdout, /prepared statement|queue round failed/);
    assert.deepEqual(
      Object.keys(statuses).filter((s) => Number(s) >= 500),
      [],
      `no 5xx (statuses ${JSON.stringify(statuses)})`,
    );

    t.diagnostic(
      `${ops} operations (${created.size} creates), statuses ${JSON.stringify(statuses)}, ${transportErrors} cut by the kill; ` +
        `${deliveries.length} deliveries, ${gate.received()} received, ${victimHeld} held by the victim at the kill and delivered by the survivor`,
    );
  });
});
