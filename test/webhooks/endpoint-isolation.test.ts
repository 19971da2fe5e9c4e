import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type CommandContext, runCommand } from '../../src/cli/index.ts';
import { startWebhookWorker } from '../../src/webhooks/index.ts';
import { createRequest, ENGINE, startTestApp, type TenantWithKey, type TestApp } from '../helpers/test-app.ts';
import { closedPortUrl, type Receiver, startReceiver } from './receiver.ts';

describe(`webhooks: a bad endpoint delays only itself (${ENGINE})`, () => {
  let t: TestApp;
  let ctx: CommandContext;

  before(async () => {
    // The receivers are on loopback: private targets allowed, as for a PMS on the premises.
    t = await startTestApp({ env: { WEBHOOKS_ALLOW_PRIVATE: 'on' } });
    ctx = { config: t.config, db: t.db, repos: t.repos, app: t.app.payreq };
  });
  after(() => t.close());

  async function register(tenant: TenantWithKey, url: string): Promise<void> {
    const r = await runCommand(['webhook', 'create', '--tenant', tenant.tenantId, '--url', url, '--json'], ctx);
    assert.equal(r.exitCode, 0, r.stderr);
  }

  test("with 10 bad endpoints on one tenant, another tenant's event is delivered within 5 s", async () => {
    const receivers: Receiver[] = [];
    const receiver = async (...args: Parameters<typeof startReceiver>) => {
      const r = await startReceiver(...args);
      receivers.push(r);
      return r;
    };
    // Tenant B: 4 receivers that accept and never answer, 3 that answer 500, 3 closed ports, and
    // one healthy receiver, with 20 requests: 220 deliveries queued before the worker starts.
    const b = await t.newTenant('Hôtel B');
    const hanging = await Promise.all([1, 2, 3, 4].map(() => receiver(() => 'hang')));
    const erroring = await Promise.all([1, 2, 3].map(() => receiver(() => 500)));
    const closed = await Promise.all([1, 2, 3].map(() => closedPortUrl()));
    const healthyB = await receiver();
    for (const url of [...hanging.map((r) => r.url), ...erroring.map((r) => r.url), ...closed, healthyB.url]) {
      await register(b, url);
    }
    for (let i = 0; i < 20; i++) await createRequest(t, { reservation_ref: `ISO-B-${i}` }, b);
    const a = await t.newTenant('Hôtel A');
    const healthyA = await receiver();
    await register(a, healthyA.url);

    // The worker as `payreq serve` runs it: production timeouts and retry delays.
    const worker = startWebhookWorker(
      { db: t.db, repos: t.repos, secretKeys: t.app.payreq.secretKeys },
      {
        retryBaseMs: 30_000,
        allowPrivate: true,
      },
    );
    try {
      // Every hanging receiver holds a delivery open: the worst moment for everyone else.
      await Promise.all(hanging.map((r) => r.waitFor(1, 5_000)));
      const started = Date.now();
      await createRequest(t, { reservation_ref: 'ISO-A' }, a);
      await healthyA.waitFor(1, 5_000);
      assert.ok(Date.now() - started < 5_000, `tenant A's event took ${Date.now() - started} ms`);
      assert.equal(healthyA.received[0]?.json.data.reservation_ref, 'ISO-A');
      // B's own healthy endpoint is not held back by its siblings either.
      await healthyB.waitFor(20, 5_000);
    } finally {
      // Closing the receivers ends the held deliveries, so the worker stops at once.
      await Promise.all(receivers.map((r) => r.close()));
      await worker.stop();
    }
  });
});
