import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type CommandContext, runCommand } from '../../src/cli/index.ts';
import { deliverDueWebhooks, verifySignature, type WebhookOptions } from '../../src/webhooks/index.ts';
import { createRequest, ENGINE, startTestApp, type TenantWithKey, type TestApp } from '../helpers/test-app.ts';
import { startReceiver } from './receiver.ts';

describe(`webhooks: the SSRF guard at registration and delivery, redirects, secret rotation (${ENGINE})`, () => {
  let t: TestApp;
  let ctx: CommandContext;
  // Private targets allowed for the receivers on loopback, as for a PMS on the premises.
  const allowed: WebhookOptions = { retryBaseMs: 10, timeoutMs: 2000, allowPrivate: true };

  before(async () => {
    t = await startTestApp({ env: { WEBHOOKS_ALLOW_PRIVATE: 'on' } });
    ctx = { config: t.config, db: t.db, repos: t.repos, app: t.app.payreq };
  });
  after(() => t.close());

  const cli = (argv: string[], config = t.config) => runCommand(argv, { ...ctx, config });

  async function register(tenant: TenantWithKey, url: string): Promise<{ id: string; secret: string }> {
    const r = await cli(['webhook', 'create', '--tenant', tenant.tenantId, '--url', url, '--json']);
    assert.equal(r.exitCode, 0, r.stderr);
    return JSON.parse(r.stdout);
  }

  const round = (opts: WebhookOptions = allowed) =>
    deliverDueWebhooks({ db: t.db, repos: t.repos, secretKeys: t.app.payreq.secretKeys }, opts);

  const attemptsOf = async (endpointId: string) =>
    (
      await t.db.query<{ status_code: number | null; error: string | null; duration_ms: number; attempt: number }>(
        `SELECT a.status_code, a.error, a.duration_ms, a.attempt FROM webhook_attempts a
           JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.endpoint_id = $1 ORDER BY a.id`,
        [endpointId],
      )
    ).rows;

  test('registration refuses loopback, private, link-local, metadata and multicast targets unless allowed', async () => {
    const strict = { ...t.config, webhooksAllowPrivate: false };
    const tenant = await t.newTenant();
    for (const url of [
      'http://127.0.0.1:8080/hook',
      'http://localhost:8080/hook',
      'http://[::1]/hook',
      'http://[::ffff:127.0.0.1]/hook',
      'http://0.0.0.0/hook',
      'http://10.0.0.5/hook',
      'http://100.64.0.1/hook',
      'http://[fd00::5]/hook',
      'http://169.254.169.254/latest/meta-data/',
      'http://[fe80::1]/hook',
      'http://224.0.0.1/hook',
    ]) {
      const r = await cli(['webhook', 'create', '--tenant', tenant.tenantId, '--url', url, '--json'], strict);
      assert.equal(r.exitCode, 1, url);
      assert.match(r.stderr, /refused: .* address/, url);
    }
    // Allowed by the setting: loopback and private; never metadata or link-local.
    assert.equal(
      (await cli(['webhook', 'create', '--tenant', tenant.tenantId, '--url', 'http://10.0.0.5/h'])).exitCode,
      0,
    );
    for (const url of ['http://169.254.169.254/', 'http://[fe80::1]/h']) {
      const r = await cli(['webhook', 'create', '--tenant', tenant.tenantId, '--url', url]);
      assert.equal(r.exitCode, 1, url);
    }
    const list = await cli(['webhook', 'list', '--tenant', tenant.tenantId, '--json']);
    assert.deepEqual(
      JSON.parse(list.stdout).endpoints.map((e: { url: string }) => e.url),
      ['http://10.0.0.5/h'],
    );
  });

  test('delivery refuses a name that resolves to 127.0.0.1 now, and records why', async () => {
    const tenant = await t.newTenant();
    const receiver = await startReceiver();
    try {
      // Registered while allowed (or while the name was public); delivered under the strict policy.
      const hook = await register(tenant, receiver.url.replace('127.0.0.1', 'localhost'));
      await createRequest(t, { reservation_ref: 'SSRF-LOCALHOST' }, tenant);
      await round({ ...allowed, allowPrivate: false });
      assert.equal(receiver.received.length, 0, 'nothing reached the receiver');
      const [attempt] = await attemptsOf(hook.id);
      assert.equal(attempt?.status_code, null);
      assert.match(attempt?.error ?? '', /refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
      // Under the setting, the same endpoint is reached: the refusal was the guard's.
      await t.db.query('UPDATE webhook_deliveries SET next_attempt_at = now() WHERE endpoint_id = $1', [hook.id]);
      await t.db.query('UPDATE webhook_endpoints SET next_attempt_at = now() WHERE id = $1', [hook.id]);
      await round();
      await receiver.waitFor(1);
      assert.equal((await cli(['webhook', 'delete', hook.id])).exitCode, 0);
    } finally {
      await receiver.close();
    }
  });

  test('a redirect is not followed: the attempt fails with its status and where it pointed', async () => {
    const tenant = await t.newTenant();
    const target = await startReceiver();
    let redirects = 0;
    const server: Server = createServer((req, res) => {
      redirects++;
      req.resume();
      res.writeHead(302, { location: `${target.url}?from=redirect` }).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const hook = await register(tenant, url);
      await createRequest(t, { reservation_ref: 'SSRF-302' }, tenant);
      await round();
      assert.equal(redirects, 1);
      assert.equal(target.received.length, 0, 'the redirect was not followed');
      const [attempt] = await attemptsOf(hook.id);
      assert.equal(attempt?.status_code, 302);
      assert.equal(attempt?.attempt, 1);
      assert.ok((attempt?.duration_ms ?? -1) >= 0);
      assert.equal(
        attempt?.error,
        `HTTP 302: redirect to ${target.url}?from=redirect not followed (register the final URL)`,
      );
      const d = await t.db.query<{ status: string; last_status_code: number }>(
        'SELECT status, last_status_code FROM webhook_deliveries WHERE endpoint_id = $1',
        [hook.id],
      );
      assert.deepEqual(d.rows, [{ status: 'pending', last_status_code: 302 }]);
      assert.equal((await cli(['webhook', 'delete', hook.id])).exitCode, 0);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await target.close();
    }
  });

  test('rotation: both secrets sign for 24 hours (new first, old last), then only the new one', async () => {
    const tenant = await t.newTenant();
    const receiver = await startReceiver();
    try {
      const hook = await register(tenant, receiver.url);
      const rotated = await cli(['webhook', 'rotate-secret', hook.id, '--json']);
      assert.equal(rotated.exitCode, 0, rotated.stderr);
      const { secret, previous_secret_expires_at } = JSON.parse(rotated.stdout);
      assert.match(secret, /^whsec_/);
      assert.notEqual(secret, hook.secret);
      const grace = new Date(previous_secret_expires_at).getTime() - Date.now();
      assert.ok(grace > 23.9 * 3600_000 && grace <= 24 * 3600_000, String(grace));

      await createRequest(t, { reservation_ref: 'ROTATE-1' }, tenant);
      await round();
      await receiver.waitFor(1);
      const first = receiver.received[0];
      const header = String(first?.headers['payreq-signature']);
      assert.match(header, /^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
      assert.ok(verifySignature(secret, first?.body ?? '', header), 'the new secret verifies');
      assert.ok(verifySignature(hook.secret, first?.body ?? '', header), 'the old secret still verifies');
      // A receiver that keeps only the last v1= (as a naive parser does) still has the old secret's.
      const lastV1 = header.split(',').at(-1);
      assert.ok(verifySignature(hook.secret, first?.body ?? '', `${header.split(',')[0]},${lastV1}`));

      // After the grace, the old secret signs no more.
      await t.db.query(
        "UPDATE webhook_endpoints SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1",
        [hook.id],
      );
      await createRequest(t, { reservation_ref: 'ROTATE-2' }, tenant);
      await round();
      await receiver.waitFor(2);
      const second = receiver.received[1];
      const header2 = String(second?.headers['payreq-signature']);
      assert.match(header2, /^t=\d+,v1=[0-9a-f]{64}$/);
      assert.ok(verifySignature(secret, second?.body ?? '', header2));
      assert.ok(!verifySignature(hook.secret, second?.body ?? '', header2));

      const unknown = await cli(['webhook', 'rotate-secret', '00000000-0000-4000-8000-000000000000']);
      assert.equal(unknown.exitCode, 1);
    } finally {
      await receiver.close();
    }
  });
});
