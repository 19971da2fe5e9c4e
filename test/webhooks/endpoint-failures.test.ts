import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type CommandContext, runCommand } from '../../src/cli/index.ts';
import { jobStore } from '../../src/queue/index.ts';
import { deliverDueWebhooks, type WebhookOptions, webhookJobKind } from '../../src/webhooks/index.ts';
import { ControlClient, createUser } from '../control/control-client.ts';
import { createRequest, ENGINE, startTestApp, type TenantWithKey, type TestApp } from '../helpers/test-app.ts';
import { startReceiver, unansweredAddress } from './receiver.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface EndpointState {
  status: string;
  failures: number;
  failing_since: Date | null;
  next_attempt_at: Date;
}

describe(`webhooks: a failing endpoint backs off on its own clock and is disabled after 3 days (${ENGINE})`, () => {
  let t: TestApp;
  let ctx: CommandContext;
  const notices: string[] = [];
  const log = { info() {}, warn: (_o: Record<string, unknown>, msg: string) => notices.push(msg), error() {} };
  // Production's retry delays; the clock is the test's.
  // The receivers are on loopback: private targets are allowed here, as an operator would for a PMS on the premises.
  const opts: WebhookOptions = { retryBaseMs: 30_000, timeoutMs: 5_000, log, allowPrivate: true };

  before(async () => {
    t = await startTestApp({ env: { WEBHOOKS_ALLOW_PRIVATE: 'on' } });
    ctx = { config: t.config, db: t.db, repos: t.repos, app: t.app.payreq };
  });
  after(() => t.close());

  const round = (at: number, more: Partial<WebhookOptions> = {}) =>
    deliverDueWebhooks(
      { db: t.db, repos: t.repos, secretKeys: t.app.payreq.secretKeys },
      { ...opts, ...more, now: () => new Date(at) },
    );

  async function register(tenant: TenantWithKey, url: string): Promise<string> {
    const r = await runCommand(['webhook', 'create', '--tenant', tenant.tenantId, '--url', url, '--json'], ctx);
    assert.equal(r.exitCode, 0, r.stderr);
    return JSON.parse(r.stdout).id;
  }

  async function endpoint(id: string): Promise<EndpointState> {
    const r = await t.db.query<EndpointState>(
      'SELECT status, failures, failing_since, next_attempt_at FROM webhook_endpoints WHERE id = $1',
      [id],
    );
    return r.rows[0] as EndpointState;
  }

  const pendingOf = async (endpointId: string) =>
    (
      await t.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending'",
        [endpointId],
      )
    ).rows[0]?.n;

  /** Rounds an hour apart (the longest an endpoint waits) from `from` until `done()` or `until`. */
  async function hourly(from: number, until: number, done: () => Promise<boolean>): Promise<number> {
    for (let at = from; at <= until; at += HOUR) {
      await round(at);
      if (await done()) return at;
    }
    return Number.NaN;
  }

  test('a failing endpoint is not tried before its own next attempt, then one delivery at a time', async () => {
    const tenant = await t.newTenant();
    const receiver = await startReceiver((n) => (n < 3 ? 500 : 200));
    try {
      const id = await register(tenant, receiver.url);
      for (const ref of ['BO-1', 'BO-2', 'BO-3']) await createRequest(t, { reservation_ref: ref }, tenant);
      const t0 = Date.now() + 1000;
      const s = (seconds: number) => t0 + seconds * 1000;
      // While it answers, two at once. Both fail: the endpoint waits 30 s, doubled by the second failure.
      assert.deepEqual(await round(s(0)), { claimed: 2, delivered: 0, failed: 2, disabled: 0 });
      assert.deepEqual(await endpoint(id), {
        status: 'enabled',
        failures: 2,
        failing_since: new Date(s(0)),
        next_attempt_at: new Date(s(60)),
      });
      // The third delivery is due and was never tried: it waits for its endpoint all the same.
      assert.equal((await round(s(1))).claimed, 0);
      assert.equal((await round(s(59))).claimed, 0);
      assert.equal(receiver.received.length, 2);
      // Then one at a time while it fails, the wait doubling again.
      assert.deepEqual(await round(s(60)), { claimed: 1, delivered: 0, failed: 1, disabled: 0 });
      assert.equal((await round(s(60 + 119))).claimed, 0);
      assert.deepEqual(await round(s(60 + 120)), { claimed: 1, delivered: 1, failed: 0, disabled: 0 });
      // It answers again: its failures are forgotten, and it is sent two at once.
      assert.deepEqual(await endpoint(id), {
        status: 'enabled',
        failures: 0,
        failing_since: null,
        next_attempt_at: new Date(s(180)),
      });
      assert.deepEqual(await round(s(181)), { claimed: 2, delivered: 2, failed: 0, disabled: 0 });
      assert.equal(receiver.received.length, 6);
    } finally {
      await receiver.close();
    }
  });

  test('claims count what every instance has in flight: 2 per endpoint, a cap per tenant', async () => {
    const busy = await t.newTenant();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await register(busy, `http://127.0.0.1:9/hook-${i}`));
    for (const ref of ['CAP-1', 'CAP-2', 'CAP-3']) await createRequest(t, { reservation_ref: ref }, busy);
    const other = await t.newTenant();
    ids.push(await register(other, 'http://127.0.0.1:9/other'));
    await createRequest(t, { reservation_ref: 'CAP-OTHER' }, other);
    // The queue's claim of the webhook kind, as an instance's worker makes it.
    const kind = webhookJobKind(
      { db: t.db, repos: t.repos, secretKeys: t.app.payreq.secretKeys },
      { retryBaseMs: 30_000, perEndpoint: 2, perTenant: 5 },
    );
    const claim = async (limit: number) => {
      const jobs = await jobStore(t.db).claim(
        'webhook_delivery',
        { limit, leaseMs: 60_000, owner: 'test', now: new Date(Date.now() + 1000) },
        kind.narrow,
      );
      const r = await t.db.query<{ endpoint_id: string; tenant_id: string }>(
        `SELECT d.endpoint_id, w.tenant_id FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
          WHERE d.id = ANY($1::bigint[])`,
        [jobs.map((j) => j.ref)],
      );
      return r.rows;
    };
    // One instance: 5 of the busy tenant's 9 deliveries, at most 2 per endpoint; the other's one.
    const first = await claim(100);
    const busyOnes = first.filter((d) => d.tenant_id === busy.tenantId);
    assert.equal(busyOnes.length, 5);
    const perEndpoint = new Map<string, number>();
    for (const d of busyOnes) perEndpoint.set(d.endpoint_id, (perEndpoint.get(d.endpoint_id) ?? 0) + 1);
    assert.ok([...perEndpoint.values()].every((n) => n <= 2));
    assert.equal(first.filter((d) => d.tenant_id === other.tenantId).length, 1);
    // Another instance, while those are in flight: nothing more for that tenant.
    assert.deepEqual(await claim(100), []);
    // Their deliveries are never sent: gone with their endpoints, out of the other tests' rounds.
    for (const id of ids) await runCommand(['webhook', 'delete', id], ctx);
  });

  test('an endpoint that fails every attempt for 3 days is disabled; the audit log and the back office say so', async () => {
    const tenant = await t.newTenant('Hôtel en Panne');
    const receiver = await startReceiver(() => 500);
    try {
      const id = await register(tenant, receiver.url);
      for (const ref of ['DIS-1', 'DIS-2']) await createRequest(t, { reservation_ref: ref }, tenant);
      const t0 = Date.now() + 1000;
      const disabledAt = await hourly(t0, t0 + 4 * DAY, async () => (await endpoint(id)).status === 'disabled');
      assert.equal(disabledAt, t0 + 3 * DAY, 'at the first failure 3 days after the first one');
      // Two at first, then one an hour.
      assert.equal(receiver.received.length, 2 + 72);
      assert.equal(await pendingOf(id), 0, 'its deliveries fail with it');
      const list = await runCommand(['webhook', 'list', '--tenant', tenant.tenantId, '--json'], ctx);
      const shown = JSON.parse(list.stdout).endpoints[0];
      assert.equal(shown.status, 'disabled');
      assert.match(shown.disabled_reason, /3 days.*HTTP 500/);
      assert.ok(
        notices.some((n) => /disabled/.test(n)),
        'the operator is told',
      );
      const audit = await t.repos.audit.list({
        tenantId: tenant.tenantId,
        action: 'webhook_endpoint_disabled',
        limit: 5,
      });
      assert.deepEqual(
        audit.map((a) => [a.target, a.outcome, a.detail.url, a.detail.deliveries_failed]),
        [[id, 'ok', receiver.url, 1]],
      );
      // The tenant's users see it on the settings page.
      await createUser(t, 'panne-manager', tenant.tenantId);
      const page = await (await new ControlClient(t).signedIn('panne-manager')).get('/control/settings');
      assert.equal(page.statusCode, 200);
      assert.match(
        page.body,
        /class="flash error" role="status"><p>Webhook endpoint http:\/\/127\.0\.0\.1:\d+\/hooks\/payreq was disabled on/,
      );
      await createRequest(t, { reservation_ref: 'DIS-3' }, tenant);
      assert.equal(await pendingOf(id), 0, 'a disabled endpoint is not queued');
    } finally {
      await receiver.close();
    }
  });

  test('an endpoint that answered in between, or was idle, is not disabled: its run of failures starts again', async () => {
    const tenant = await t.newTenant('Hôtel Intermittent');
    let answerOnce = false;
    const receiver = await startReceiver(() => {
      if (!answerOnce) return 500;
      answerOnce = false;
      return 200;
    });
    try {
      const id = await register(tenant, receiver.url);
      for (const ref of ['INT-1', 'INT-2']) await createRequest(t, { reservation_ref: ref }, tenant);
      const t0 = Date.now() + 1000;
      await hourly(t0, t0 + 2 * DAY - HOUR, async () => false);
      // On day 2 it takes one delivery; the other keeps failing until its own 3 days are over.
      answerOnce = true;
      await round(t0 + 2 * DAY);
      assert.equal((await endpoint(id)).failures, 0);
      const settled = await hourly(t0 + 2 * DAY + HOUR, t0 + 4 * DAY, async () => (await pendingOf(id)) === 0);
      assert.equal(settled, t0 + 3 * DAY, 'the delivery fails alone after 3 days');
      assert.equal((await endpoint(id)).status, 'enabled', 'its endpoint failed for 1 day only');
      // Nothing to send for a week: the next failure starts a new run rather than continue that one.
      await createRequest(t, { reservation_ref: 'INT-3' }, tenant);
      await t.db.query(
        "UPDATE webhook_deliveries SET first_attempt_due = $2 WHERE endpoint_id = $1 AND status = 'pending'",
        [id, new Date(t0 + 10 * DAY)],
      );
      await round(t0 + 10 * DAY);
      const state = await endpoint(id);
      assert.equal(state.status, 'enabled');
      assert.deepEqual(state.failing_since, new Date(t0 + 10 * DAY));
      // The back office says it is failing, before it is disabled.
      await createUser(t, 'intermittent-manager', tenant.tenantId);
      const page = await (await new ControlClient(t).signedIn('intermittent-manager')).get('/control/settings');
      assert.match(
        page.body,
        /Webhook endpoint http:\/\/127\.0\.0\.1:\d+\/hooks\/payreq has failed every delivery since/,
      );
    } finally {
      await receiver.close();
    }
  });

  test('an address where the connection never opens is given up after the connect timeout', async () => {
    const tenant = await t.newTenant();
    const hole = await unansweredAddress();
    try {
      const id = await register(tenant, hole.url);
      await createRequest(t, { reservation_ref: 'CONNECT' }, tenant);
      // The whole timeout is far longer: only the connect timeout can end this attempt.
      const r = await round(Date.now() + 1000, { connectTimeoutMs: 300, timeoutMs: 60_000 });
      assert.equal(r.failed, 1);
      const row = await t.db.query<{ last_error: string }>(
        'SELECT last_error FROM webhook_deliveries WHERE endpoint_id = $1',
        [id],
      );
      assert.equal(row.rows[0]?.last_error, 'connect timed out');
    } finally {
      await hole.close();
    }
  });
});
