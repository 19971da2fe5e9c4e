import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/index.ts';
import { sandboxProvider } from '../../src/providers/index.ts';
import { cliEnv, killAll, payreq, scratchDir } from '../cli/payreq-process.ts';
import { sharedDatabases } from '../cli/shared-database.ts';
import { ENGINE } from '../helpers/database.ts';
import { arrangeHold } from '../helpers/fixtures.ts';
import { createBody, newTenant } from '../helpers/test-app.ts';

const SECRET_KEY = 's'.repeat(64);

// `payreq books check` as a process: the exit status says whether every order agrees, and each
// order that does not is a line naming its reference, then the summary. The core is tested
// in-process (books-check.test.ts); this is what a script or a cron line relies on.
describe(`payreq books check, as a process (${ENGINE})`, { timeout: 180_000 }, () => {
  const scratch = scratchDir();
  const databases = sharedDatabases(scratch.dir);
  after(async () => {
    killAll();
    await databases.drop();
    scratch.cleanup();
  });

  test('exit 1 with a line naming the order whose books differ; exit 0 for a tenant whose books agree', async () => {
    const shared = await databases.create();
    const env = cliEnv({ DATABASE_URL: shared.url, SECRET_KEY });
    const db = await shared.open();
    const app = await buildApp({ config: loadConfig({ ...env, NODE_ENV: 'test' } as NodeJS.ProcessEnv), db });
    const clean = await newTenant(app.payreq.repos, 'Hôtel Juste');
    const wrong = await newTenant(app.payreq.repos, 'Hôtel Faux');
    /** An IMPRINT of `tenant` with its hold placed in the sandbox. */
    const held = async (tenant: typeof clean) => {
      const r = await app.inject({
        method: 'POST',
        url: '/api/payment-requests/',
        headers: tenant.headers,
        payload: createBody({ request_type: 'IMPRINT', amount: 80 }),
      });
      const { uuid, reference } = r.json() as { uuid: string; reference: string };
      await db.query("UPDATE payment_requests SET status = 'AUTHORISED_TO_VALIDATE' WHERE id = $1", [uuid]);
      return { uuid, reference, ...(await arrangeHold(db, uuid)) };
    };
    const ok = await held(clean);
    const captured = await app.inject({
      method: 'POST',
      url: `/api/payment-requests/${ok.uuid}/capture/`,
      headers: clean.headers,
    });
    assert.equal(captured.statusCode, 200, captured.body);
    const bad = await held(wrong);
    // Captured at the provider's side directly: the sandbox's own books, which payreq never asked.
    await sandboxProvider({ db, secretKey: SECRET_KEY, publicBaseUrl: 'http://127.0.0.1' }).capture({
      orderId: bad.uuid,
      reference: bad.reference,
      currency: 'EUR',
      idempotencyKey: `provider-side:${bad.uuid}`,
      transactionId: bad.transactionId,
      amountCents: 8000,
    });
    await app.close();
    // PGlite admits one process per directory: closed before the CLI opens it.
    await db.close();

    const all = await payreq(['books', 'check', '--json'], env, scratch.dir);
    assert.equal(all.code, 1, all.stderr);
    const lines = all.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(lines.length, 2, all.stdout);
    assert.deepEqual(
      [lines[0]?.reference, lines[0]?.verdict, lines[0]?.provider_net, lines[0]?.payreq_net],
      [bad.reference, 'disagree', 80, 0],
    );
    assert.deepEqual(lines[1], { orders: 2, agree: 1, disagree: 1, in_doubt: 0 });

    const mine = await payreq(['books', 'check', '--tenant', clean.tenantId], env, scratch.dir);
    assert.equal(mine.code, 0, mine.stderr);
    assert.equal(mine.stdout.trim(), '{"orders":1,"agree":1,"disagree":0,"in_doubt":0}');
  });
});
