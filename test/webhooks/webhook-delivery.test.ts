import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type CommandContext, runCommand } from '../../src/cli/index.ts';
import { jobStore } from '../../src/queue/index.ts';
import {
  deliverDueWebhooks,
  startWebhookWorker,
  verifySignature,
  type WebhookOptions,
  webhookJobKind,
} from '../../src/webhooks/index.ts';
import { eventually } from '../helpers/sandbox-checkout.ts';
import {
  auditResponses,
  createRequest,
  ENGINE,
  startTestApp,
  type TenantWithKey,
  type TestApp,
} from '../helpers/test-app.ts';
import { type Answer, type Received, startReceiver } from './receiver.ts';

interface Created {
  id: string;
  url: string;
  events: string[];
  secret: string;
}

describe(`webhooks: signed deliveries through an outbox, to a real receiver (${ENGINE})`, () => {
  let t: TestApp;
  let ctx: CommandContext;
  // The receivers are on loopback: private targets allowed, as for a PMS on the premises.
  const fast: WebhookOptions = { retryBaseMs: 10, timeoutMs: 500, allowPrivate: true };

  before(async () => {
    t = await startTestApp({ env: { WEBHOOKS_ALLOW_PRIVATE: 'on' } });
    ctx = { config: t.config, db: t.db, repos: t.repos, app: t.app.payreq };
  });
  after(() => t.close());

  async function cli(...argv: string[]) {
    const r = await runCommand(argv, ctx);
    return { ...r, json: r.exitCode === 0 && argv.includes('--json') ? JSON.parse(r.stdout) : undefined };
  }

  async function register(tenant: TenantWithKey, url: string, events?: string): Promise<Created> {
    const r = await cli(
      'webhook',
      'create',
      '--tenant',
      tenant.tenantId,
      '--url',
      url,
      ...(events ? ['--events', events] : []),
      '--json',
    );
    assert.equal(r.exitCode, 0, r.stderr);
    return r.json as Created;
  }

  /** Runs delivery rounds until `done()` holds: retries become due within milliseconds here. */
  async function roundsUntil(done: () => boolean | Promise<boolean>, opts: WebhookOptions = fast) {
    const deadline = Date.now() + 30_000;
    while (!(await done())) {
      assert.ok(Date.now() < deadline, 'deliveries did not settle in time');
      await deliverDueWebhooks({ db: t.db, repos: t.repos, secretKeys: t.app.payreq.secretKeys }, opts);
      await new Promise((r) => setImmediate(r));
    }
  }

  const pendingCount = async () =>
    (await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'"))
      .rows[0]?.n ?? -1;

  /** One tenant's pending deliveries: an earlier test's failing endpoint may still be backing off. */
  const pendingFor = async (tenant: TenantWithKey) =>
    (
      await t.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
          WHERE d.status = 'pending' AND w.tenant_id = $1`,
        [tenant.tenantId],
      )
    ).rows[0]?.n ?? -1;

  test('create answers id, url, events and the secret once; list never shows it; bad input is refused', async () => {
    const tenant = await t.newTenant('Hôtel Webhook');
    const created = await register(tenant, 'https://pms.example.com/payreq', 'payment_request.captured');
    assert.deepEqual(Object.keys(created).slice(0, 4), ['id', 'url', 'events', 'secret']);
    assert.match(created.secret, /^whsec_[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(created.events, ['payment_request.captured']);
    const list = await cli('webhook', 'list', '--tenant', tenant.tenantId, '--json');
    assert.equal(list.json.endpoints.length, 1);
    assert.equal(list.json.endpoints[0].status, 'enabled');
    assert.doesNotMatch(list.stdout, /whsec_/);
    const sealed = await t.db.query<{ secret_sealed: string }>('SELECT secret_sealed FROM webhook_endpoints');
    assert.ok(
      sealed.rows.every((r) => !r.secret_sealed.includes(created.secret)),
      'the secret is stored sealed',
    );
    for (const args of [
      ['--url', 'not a url'],
      ['--url', 'ftp://pms.example.com/'],
      ['--url', 'https://pms.example.com/', '--events', 'payment_request.paid'],
      ['--url', 'https://user:pw@pms.example.com/'],
    ]) {
      const r = await cli('webhook', 'create', '--tenant', tenant.tenantId, ...args, '--json');
      assert.equal(r.exitCode, 1, args.join(' '));
      assert.match(r.stderr, /error/i);
    }
    assert.equal((await cli('webhook', 'list', '--tenant', tenant.tenantId, '--json')).json.endpoints.length, 1);
    assert.equal((await cli('webhook', 'delete', created.id, '--json')).exitCode, 0);
    assert.equal((await cli('webhook', 'delete', created.id)).exitCode, 1);
  });

  test('each event is POSTed once with a valid Payreq-Signature, the body being the feed event', async () => {
    const tenant = await t.newTenant();
    const receiver = await startReceiver();
    try {
      const hook = await register(tenant, receiver.url);
      const r = await createRequest(t, { reservation_ref: 'WH-SIGN' }, tenant);
      await roundsUntil(async () => receiver.received.length >= 1 && (await pendingCount()) === 0);
      assert.equal(receiver.received.length, 1);
      const got = receiver.received[0] as Received;
      const header = String(got.headers['payreq-signature']);
      assert.match(header, /^t=\d+,v1=[0-9a-f]{64}$/);
      assert.ok(verifySignature(hook.secret, got.body, header), 'signature verifies with the secret');
      assert.ok(!verifySignature(`${hook.secret}x`, got.body, header), 'and not with another');
      assert.ok(!verifySignature(hook.secret, `${got.body} `, header), 'nor over another body');
      assert.equal(got.headers['content-type'], 'application/json');
      assert.equal(got.json.type, 'payment_request.not_initiated');
      assert.equal(got.json.data.uuid, r.uuid);
      assert.equal(got.headers['payreq-event-id'], String(got.json.id));
      // The feed shows an event once every older transaction on the server has ended (so it
      // never skips one that commits late): another database's work on a shared test server
      // can hold it back a moment, so wait for it rather than read once.
      const feedEvent = await eventually(async () => {
        const feed = await t.call({ method: 'GET', url: `/api/events/?after=${got.json.id - 1}&limit=1`, tenant });
        return feed.json()[0];
      }, 'the event in the feed');
      assert.deepEqual(feedEvent, got.json);
    } finally {
      await receiver.close();
    }
  });

  test('a 500 and a timeout are retried until the endpoint takes it; the log keeps the outcome', async () => {
    const tenant = await t.newTenant();
    const answers: Answer[] = [500, 'hang', 200];
    const receiver = await startReceiver((n) => answers[n] ?? 200);
    try {
      const hook = await register(tenant, receiver.url);
      await createRequest(t, { reservation_ref: 'WH-RETRY' }, tenant);
      await roundsUntil(async () => (await pendingCount()) === 0);
      assert.equal(receiver.received.length, 3);
      assert.equal(new Set(receiver.received.map((r) => r.json.id)).size, 1, 'the same event each time');
      assert.deepEqual(
        receiver.received.map((r) => r.headers['payreq-delivery-attempt']),
        ['1', '2', '3'],
      );
      const log = await t.db.query<{ status: string; attempts: number; last_status_code: number }>(
        'SELECT status, attempts, last_status_code FROM webhook_deliveries WHERE endpoint_id = $1',
        [hook.id],
      );
      assert.deepEqual(log.rows, [{ status: 'delivered', attempts: 3, last_status_code: 200 }]);
    } finally {
      await receiver.close();
    }
  });

  test("the events of one request arrive in order: a later one waits for the earlier one's retries", async () => {
    const tenant = await t.newTenant();
    const receiver = await startReceiver((n) => (n === 0 ? 503 : 200));
    try {
      await register(tenant, receiver.url);
      const r = await createRequest(t, { reservation_ref: 'WH-ORDER' }, tenant);
      assert.equal(
        (await t.call({ method: 'POST', url: `/api/payment-requests/${r.uuid}/cancel/`, tenant })).statusCode,
        200,
      );
      assert.equal(
        (await t.call({ method: 'DELETE', url: `/api/payment-requests/${r.uuid}/`, tenant })).statusCode,
        200,
      );
      await roundsUntil(async () => (await pendingCount()) === 0);
      assert.deepEqual(
        receiver.received.map((x) => x.json.type),
        [
          'payment_request.not_initiated',
          'payment_request.not_initiated',
          'payment_request.cancelled',
          'payment_request.deleted',
        ],
      );
    } finally {
      await receiver.close();
    }
  });

  test('an endpoint gets only the types it asked for', async () => {
    const tenant = await t.newTenant();
    const receiver = await startReceiver();
    try {
      await register(tenant, receiver.url, 'payment_request.cancelled');
      const r = await createRequest(t, { reservation_ref: 'WH-TYPES' }, tenant);
      await t.call({ method: 'POST', url: `/api/payment-requests/${r.uuid}/cancel/`, tenant });
      await roundsUntil(async () => (await pendingCount()) === 0);
      assert.deepEqual(
        receiver.received.map((x) => x.json.type),
        ['payment_request.cancelled'],
      );
    } finally {
      await receiver.close();
    }
  });

  test('nothing is lost across a restart: queued while no worker runs, or held by a worker that died', async () => {
    const tenant = await t.newTenant();
    const receiver = await startReceiver();
    try {
      await register(tenant, receiver.url);
      // No worker: the changes go through, their deliveries wait in the outbox.
      for (const ref of ['WH-R1', 'WH-R2']) await createRequest(t, { reservation_ref: ref }, tenant);
      // A worker claims the third and dies before sending: its lease (1 ms here) runs out.
      await createRequest(t, { reservation_ref: 'WH-R3' }, tenant);
      const kind = webhookJobKind(
        { db: t.db, repos: t.repos, secretKeys: t.app.payreq.secretKeys },
        { retryBaseMs: 30_000, perEndpoint: 10, perTenant: 10 },
      );
      const held = await jobStore(t.db).claim(
        'webhook_delivery',
        { limit: 10, leaseMs: 1, owner: 'died' },
        kind.narrow,
      );
      assert.equal(held.length, 3);
      assert.equal(receiver.received.length, 0);
      // A worker starts (as serve starts it) and sends all three.
      const worker = startWebhookWorker({ db: t.db, repos: t.repos, secretKeys: t.app.payreq.secretKeys }, fast);
      try {
        await receiver.waitFor(3);
      } finally {
        await worker.stop();
      }
      assert.deepEqual(receiver.received.map((x) => x.json.data.reservation_ref).sort(), ['WH-R1', 'WH-R2', 'WH-R3']);
    } finally {
      await receiver.close();
    }
  });

  test('a delivery never blocks the change that caused it, even with the endpoint hanging', async () => {
    const tenant = await t.newTenant();
    const receiver = await startReceiver(() => 'hang');
    const worker = startWebhookWorker(
      { db: t.db, repos: t.repos, secretKeys: t.app.payreq.secretKeys },
      { ...fast, timeoutMs: 10_000 },
    );
    try {
      const hook = await register(tenant, receiver.url);
      await createRequest(t, { reservation_ref: 'WH-HANG-1' }, tenant);
      await receiver.waitFor(1);
      // The endpoint holds the first delivery open; creates still answer at once.
      const second = await createRequest(t, { reservation_ref: 'WH-HANG-2' }, tenant);
      assert.equal(second.status, 'NOT_INITIATED');
      await cli('webhook', 'delete', hook.id);
    } finally {
      await receiver.close();
      await worker.stop();
    }
  });

  test('redeliver sends an event again; an unknown event is an error', async () => {
    const tenant = await t.newTenant();
    const receiver = await startReceiver();
    try {
      await register(tenant, receiver.url);
      await createRequest(t, { reservation_ref: 'WH-AGAIN' }, tenant);
      await roundsUntil(async () => (await pendingFor(tenant)) === 0);
      const eventId = receiver.received[0]?.json.id;
      const again = await cli('webhook', 'redeliver', String(eventId), '--json');
      assert.equal(again.exitCode, 0, again.stderr);
      assert.equal(again.json.endpoints.length, 1);
      await roundsUntil(async () => (await pendingFor(tenant)) === 0);
      assert.deepEqual(
        receiver.received.map((x) => x.json.id),
        [eventId, eventId],
      );
      assert.equal((await cli('webhook', 'redeliver', '999999999')).exitCode, 1);
      assert.equal((await cli('webhook', 'redeliver', 'abc')).exitCode, 1);
    } finally {
      await receiver.close();
    }
  });

  test('every response carried x-request-id and none was a 5xx', () => auditResponses(t));
});
