import assert from 'node:assert/strict';
import { createCipheriv, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { runCommand } from '../../src/cli/run-command.ts';
import { loadConfig } from '../../src/config/index.ts';
import { createDeferredPayments, deferredHoldsRepository } from '../../src/holds/index.ts';
import { deriveKey, keyRing, providerSecrets, resealAll, secretBox } from '../../src/secrets/index.ts';
import { createEndpoint, rotateEndpointSecret, webhookSecrets } from '../../src/webhooks/index.ts';
import { ControlClient, createUser } from '../control/control-client.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

const KEY_A = 'A'.repeat(20) + randomBytes(24).toString('hex');
const KEY_B = 'B'.repeat(20) + randomBytes(24).toString('hex');
const CHECKIN = '2026-12-10';
const CARD_OK = '4242424242424242';

/** A card token as payreq sealed them before keys had ids: `v1:` and the AES-GCM data, with `key`. */
function legacySeal(key: string, plain: string, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', deriveKey(key, 'secret-box:card-token'), iv);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return `v1:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
}

describe(`SECRET_KEY rotation with key ids and payreq secrets reseal (${ENGINE})`, () => {
  let t: TestApp;
  /** Apps started on the same database with other keys, closed at the end. */
  const others: FastifyInstance[] = [];
  /** What `t` looks like to helpers that only use `t.app`: pointed at the app under test. */
  let view: TestApp;

  before(async () => {
    t = await startTestApp({ env: { SECRET_KEY: KEY_A } });
    view = { ...t };
  });
  after(async () => {
    for (const a of others) await a.close();
    await t.close();
  });

  /** The service restarted on the same database with other key settings. */
  async function restart(env: Record<string, string>): Promise<FastifyInstance> {
    const config = loadConfig({
      NODE_ENV: 'test',
      DATABASE_URL: t.testDb.url,
      AUTH_CACHE_MS: '0',
      WORKERS: 'off',
      ...env,
    });
    const app = await buildApp({ config, db: t.db });
    await app.ready();
    others.push(app);
    view.app = app;
    return app;
  }

  /** An IMPRINT checking in on CHECKIN whose guest registered a card, its token sealed by `app`. */
  async function registered(app: FastifyInstance): Promise<string> {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount: 150, reservation_data: { checkin: CHECKIN } });
    const token = `tok_${randomBytes(12).toString('hex')}`;
    await t.db.query('INSERT INTO sandbox_tokens (token, card_number, exp_month, exp_year) VALUES ($1, $2, 12, 2031)', [
      token,
      CARD_OK,
    ]);
    const outcome = await app.payreq.notifications.apply('sandbox', {
      eventId: `evt_${randomBytes(8).toString('hex')}`,
      paymentRequestId: c.uuid,
      outcome: 'registered',
      cardToken: token,
      maskedPan: `${CARD_OK.slice(0, 6)}XXXXXX${CARD_OK.slice(-4)}`,
      expiryMonth: 12,
      expiryYear: 2031,
    });
    assert.equal(outcome, 'applied');
    return c.uuid;
  }

  const sealedOf = async (table: string, column: string) =>
    (await t.db.query<{ v: string }>(`SELECT ${column} AS v FROM ${table} WHERE ${column} IS NOT NULL`)).rows.map(
      (r) => r.v,
    );

  /** Every sealed value in the database opens with `app`'s keys, to what was sealed. */
  async function everythingOpens(app: FastifyInstance, expected: Map<string, string>): Promise<void> {
    const ring = app.payreq.secretKeys;
    const tokens = await t.db.query<{ id: string; card_token: string }>(
      'SELECT id, card_token FROM payment_requests WHERE card_token IS NOT NULL',
    );
    for (const r of tokens.rows) assert.equal(app.payreq.cardTokens.open(r.card_token, r.id), expected.get(r.id));
    const accounts = await t.db.query<{ tenant_id: string; secrets_sealed: string }>(
      'SELECT tenant_id, secrets_sealed FROM provider_accounts WHERE secrets_sealed IS NOT NULL',
    );
    for (const r of accounts.rows) {
      assert.equal(providerSecrets(ring).open(r.secrets_sealed, r.tenant_id), expected.get(r.tenant_id));
    }
    const hooks = await t.db.query<{ id: string; secret_sealed: string }>(
      'SELECT id, secret_sealed FROM webhook_endpoints',
    );
    for (const r of hooks.rows) assert.equal(webhookSecrets(ring).open(r.secret_sealed, r.id), expected.get(r.id));
    const previous = await t.db.query<{ id: string; previous_secret_sealed: string }>(
      'SELECT id, previous_secret_sealed FROM webhook_endpoints WHERE previous_secret_sealed IS NOT NULL',
    );
    for (const r of previous.rows) {
      assert.equal(webhookSecrets(ring).open(r.previous_secret_sealed, r.id), expected.get(`${r.id}:previous`));
    }
    assert.equal(tokens.rows.length + accounts.rows.length + hooks.rows.length + previous.rows.length, expected.size);
  }

  const reseal = async (app: FastifyInstance, batch = '2') => {
    const ctx = { config: app.payreq.config, db: t.db, repos: app.payreq.repos, app: app.payreq };
    const r = await runCommand(['secrets', 'reseal', '--batch', batch, '--json'], ctx);
    assert.equal(r.exitCode, 0, r.stderr);
    return JSON.parse(r.stdout);
  };

  const expected = new Map<string, string>();
  let sessionClient: ControlClient;

  test('sealed with key A (default id v1, and a v1: value from before ids); a back-office session signed with A', async () => {
    // A v1: token, as an install before key ids left it.
    const old = await registered(t.app);
    const legacyToken = `tok_${randomBytes(12).toString('hex')}`;
    await t.db.query('INSERT INTO sandbox_tokens (token, card_number, exp_month, exp_year) VALUES ($1, $2, 12, 2031)', [
      legacyToken,
      CARD_OK,
    ]);
    await t.db.query('UPDATE payment_requests SET card_token = $1 WHERE id = $2', [
      legacySeal(KEY_A, legacyToken, old),
      old,
    ]);
    expected.set(old, legacyToken);
    for (let i = 0; i < 3; i++) {
      const id = await registered(t.app);
      const r = await t.db.query<{ card_token: string }>('SELECT card_token FROM payment_requests WHERE id = $1', [id]);
      assert.match(r.rows[0]?.card_token ?? '', /^v2:v1:/);
      expected.set(id, t.app.payreq.cardTokens.open(r.rows[0]?.card_token ?? '', id));
    }
    // Another hotel's Lyra account (the default tenant keeps paying in the sandbox).
    const lyraHotel = (await t.newTenant('Hôtel Lyra')).tenantId;
    const secrets = JSON.stringify({ password: 'testpassword_x', public_key: '1:testpublickey_y', hmac_key: 'z' });
    await t.repos.providerAccounts.set(lyraHotel, {
      provider: 'lyra',
      shopId: '12345678',
      apiUrl: 'https://api.example.test/api-payment/',
      staticUrl: null,
      mode: 'TEST',
      secretsSealed: providerSecrets(t.app.payreq.secretKeys).seal(secrets, lyraHotel),
    });
    expected.set(lyraHotel, secrets);
    const hook = await createEndpoint(
      t.repos,
      t.app.payreq.secretKeys,
      { production: false, allowPrivate: true },
      {
        tenantId: t.tenant.tenantId,
        url: 'http://127.0.0.1:9/hook',
        events: [],
      },
    );
    // Rotated: the secret it replaced is sealed too, and keeps signing for the grace period.
    const rotated = await rotateEndpointSecret(t.repos, t.app.payreq.secretKeys, hook.id);
    expected.set(hook.id, rotated?.secret ?? '');
    expected.set(`${hook.id}:previous`, hook.secret);
    await everythingOpens(t.app, expected);

    await createUser(t, 'rotator');
    sessionClient = await new ControlClient(view).signedIn('rotator');
  });

  test('rotated to B with A listed as v1: everything opens, new values go under B, the session stays signed in', async () => {
    const b = await restart({ SECRET_KEY: KEY_B, SECRET_KEY_ID: 'k2', SECRET_KEYS_OLD: `v1:${KEY_A}` });
    await everythingOpens(b, expected);
    const fresh = await registered(b);
    const r = await t.db.query<{ card_token: string }>('SELECT card_token FROM payment_requests WHERE id = $1', [
      fresh,
    ]);
    assert.match(r.rows[0]?.card_token ?? '', /^v2:k2:/);
    expected.set(fresh, b.payreq.cardTokens.open(r.rows[0]?.card_token ?? '', fresh));
    const page = await sessionClient.get('/control/requests');
    assert.equal(page.statusCode, 200, 'a session signed with the retired key is still accepted');
  });

  test('reseal moves every value to B in batches; a row changed meanwhile keeps its newer value', async () => {
    const b = view.app;
    // One run with a row changed between its read and its write: compare-and-set keeps the newer value.
    const repo = b.payreq.repos.sealedValues;
    let raced: { id: string; value: string } | undefined;
    const racing = {
      ...repo,
      async replace(kind: Parameters<typeof repo.replace>[0], changes: Parameters<typeof repo.replace>[1]) {
        const first = changes[0];
        if (kind === 'card_tokens' && first && !raced) {
          const value = b.payreq.cardTokens.seal('tok_newer', first.key);
          await t.db.query('UPDATE payment_requests SET card_token = $1 WHERE id = $2', [value, first.key]);
          raced = { id: first.key, value };
        }
        return repo.replace(kind, changes);
      },
    };
    const first = await resealAll(racing, b.payreq.secretKeys, 2);
    assert.ok(raced);
    assert.equal(first.changed_meanwhile, 1);
    assert.equal(first.failed, 0);
    const kept = await t.db.query<{ card_token: string }>('SELECT card_token FROM payment_requests WHERE id = $1', [
      raced.id,
    ]);
    assert.equal(kept.rows[0]?.card_token, raced.value, 'not overwritten with the stale value');
    expected.set(raced.id, 'tok_newer');
    // The Lyra account counts twice: its current row and its version kept in the account history.
    assert.equal(first.resealed, expected.size - 2 + 1, 'all but the raced row and the one sealed under B already');
    assert.deepEqual(first.remaining, { v1: 0 });

    // A second run (the command, as an operator runs it) finds nothing left: resumable, idempotent.
    const again = await reseal(b);
    assert.equal(again.resealed, 0);
    assert.deepEqual(again.remaining, { v1: 0 });
    for (const [table, column] of [
      ['payment_requests', 'card_token'],
      ['provider_accounts', 'secrets_sealed'],
      ['provider_account_versions', 'secrets_sealed'],
      ['webhook_endpoints', 'secret_sealed'],
      ['webhook_endpoints', 'previous_secret_sealed'],
    ] as const) {
      for (const v of await sealedOf(table, column)) assert.match(v, /^v2:k2:/, `${table}.${column}`);
    }
  });

  test('A dropped: everything still opens with B alone', async () => {
    const c = await restart({ SECRET_KEY: KEY_B, SECRET_KEY_ID: 'k2' });
    await everythingOpens(c, expected);
  });

  test('a value under an unknown id: the daily job fails that row, naming the id, and holds the others; reseal reports it', async () => {
    const c = view.app;
    await t.db.query("UPDATE payment_requests SET status = 'CANCELLED' WHERE status = 'AUTHORISED'");
    const good = [await registered(c), await registered(c)];
    const bad = await registered(c);
    const lost = secretBox(keyRing({ id: 'lost2024', key: KEY_A }), 'card-token').seal('tok_unknown', bad);
    await t.db.query('UPDATE payment_requests SET card_token = $1 WHERE id = $2', [lost, bad]);

    const result = await createDeferredPayments(
      { holds: deferredHoldsRepository(t.db), runner: c.payreq.runner, cardTokens: c.payreq.cardTokens },
      CHECKIN,
    );
    assert.deepEqual(
      { considered: result.considered, held: result.held, failed: result.failed, in_doubt: result.in_doubt },
      { considered: 3, held: 2, failed: 1, in_doubt: 0 },
    );
    const statuses = await t.db.query<{ id: string; status: string; pending_action: string | null }>(
      'SELECT id, status, pending_action FROM payment_requests WHERE id = ANY($1::uuid[])',
      [[...good, bad]],
    );
    for (const s of statuses.rows) {
      if (s.id === bad) {
        assert.equal(s.status, 'AUTHORISED', 'nothing moved: the next run tries again');
        assert.equal(s.pending_action, null, 'its claim was given back');
      } else assert.equal(s.status, 'AUTHORISED_TO_VALIDATE');
    }
    const ledger = await t.db.query<{ state: string; error: string }>(
      "SELECT state, error FROM money_ledger WHERE payment_request_id = $1 AND kind = 'hold'",
      [bad],
    );
    assert.equal(ledger.rows[0]?.state, 'failed');
    assert.match(ledger.rows[0]?.error ?? '', /key id "lost2024" is not configured/);
    assert.ok(!(ledger.rows[0]?.error ?? '').includes('tok_unknown'));

    const r = await reseal(c, '500');
    assert.equal(r.failed, 1);
    assert.deepEqual(
      r.failures.map((f: { kind: string; row: string; key_id: string }) => [f.kind, f.row, f.key_id]),
      [['card_tokens', bad, 'lost2024']],
    );
    assert.deepEqual(r.remaining, { lost2024: 1 });
  });

  test('--batch is checked before anything is read', async () => {
    const c = view.app;
    const ctx = { config: c.payreq.config, db: t.db, repos: c.payreq.repos, app: c.payreq };
    for (const bad of ['0', '1.5', 'x', '10001']) {
      const r = await runCommand(['secrets', 'reseal', '--batch', bad], ctx);
      assert.equal(r.exitCode, 1);
      assert.match(r.stderr, /--batch must be a whole number from 1 to 10000/);
    }
  });
});
