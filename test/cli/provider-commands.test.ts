import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DEMO_SHOP, type LyraFake, startLyraFake } from '../fakes/lyra/lyra-fake.ts';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.ts';
import { assertFails, cliEnv, killAll, parseJson, payreq, pgliteDataDir, scratchDir } from './payreq-process.ts';

const SECRETS = JSON.stringify({
  password: DEMO_SHOP.password,
  public_key: DEMO_SHOP.publicKey,
  hmac_key: DEMO_SHOP.hmacKey,
});

describe(`payreq tenant set-provider / tenant show against the Lyra fake (${ENGINE})`, { timeout: 600_000 }, () => {
  const scratch = scratchDir();
  let testDb: TestDatabase | undefined;
  let env: NodeJS.ProcessEnv;
  let fake: LyraFake;
  let tenant: string;
  const run = (args: string[], input?: string) => payreq(args, env, scratch.dir, 60_000, input);
  const show = async () =>
    parseJson<{ provider_account: Record<string, unknown> }>(
      await run(['tenant', 'show', '--tenant', tenant, '--json']),
    ).provider_account;
  const lyraArgs = () => [
    'tenant',
    'set-provider',
    '--tenant',
    tenant,
    '--provider',
    'lyra',
    '--shop-id',
    DEMO_SHOP.shopId,
    '--api-url',
    fake.apiUrl,
    '--secrets-stdin',
  ];

  before(async () => {
    fake = await startLyraFake();
    if (ENGINE === 'postgres') testDb = await createTestDatabase();
    env = cliEnv({ DATABASE_URL: testDb ? testDb.url : `pglite://${pgliteDataDir(`${scratch.dir}/data`)}` });
    tenant = parseJson<{ id: string }>(await run(['tenant', 'create', '--name', 'Hôtel Lyra', '--json'])).id;
  });
  after(async () => {
    killAll();
    await fake.close();
    await testDb?.drop();
    scratch.cleanup();
  });

  test('a tenant with no account shows none', async () => {
    assert.deepEqual(await show(), { provider: 'none', configured: false });
  });

  test('bad input is refused with one line and stores nothing', async () => {
    const cases: [string[], string | undefined, RegExp][] = [
      [lyraArgs().filter((a) => a !== '--secrets-stdin'), undefined, /--secrets-stdin is required/],
      [lyraArgs(), 'not json', /standard input must be a JSON object/],
      [lyraArgs(), JSON.stringify({ password: 'x', public_key: 'y' }), /"hmac_key" is required/],
      [[...lyraArgs(), '--mode', 'LIVE'], SECRETS, /--mode must be TEST or PRODUCTION/],
      [[...lyraArgs(), '--mode', 'PRODUCTION'], SECRETS, /--mode PRODUCTION does not match the keys/],
      [lyraArgs().map((a) => (a === fake.apiUrl ? 'ftp://x/' : a)), SECRETS, /--api-url must be an http/],
      [
        ['tenant', 'set-provider', '--tenant', tenant, '--provider', 'adyen'],
        undefined,
        /--provider must be lyra, stripe or sandbox/,
      ],
      [
        ['tenant', 'set-provider', '--tenant', tenant, '--provider', 'sandbox', '--shop-id', '1'],
        undefined,
        /takes no/,
      ],
      [
        ['tenant', 'set-provider', '--tenant', '00000000-0000-4000-8000-000000000000', '--provider', 'sandbox'],
        undefined,
        /no tenant/,
      ],
    ];
    for (const [args, input, why] of cases) assertFails(await run(args, input), why);
    assert.equal((await show()).provider, 'none');
  });

  test('credentials Lyra refuses (Charge/SDKTest) are a clear error and store nothing', async () => {
    const wrong = JSON.stringify({ password: 'testpassword_WRONG', public_key: DEMO_SHOP.publicKey, hmac_key: 'k' });
    const r = await run(lyraArgs(), wrong);
    assertFails(r, /^error: Lyra credentials check failed, nothing stored/);
    assert.doesNotMatch(r.stderr, /testpassword_WRONG/, 'the password is never printed');
    const unreachable = lyraArgs().map((a) => (a === fake.apiUrl ? 'http://127.0.0.1:9/api-payment/' : a));
    assertFails(await run(unreachable, SECRETS), /Lyra credentials check failed, nothing stored/);
    assert.equal((await show()).provider, 'none');
  });

  test('good credentials are checked, stored sealed, and shown without a secret; sandbox goes back', async () => {
    const before = fake.calls.filter((c) => c.service === 'Charge/SDKTest').length;
    const set = await run([...lyraArgs(), '--static-url', fake.staticUrl, '--json'], SECRETS);
    assert.equal(set.code, 0, set.stderr);
    assert.equal(fake.calls.filter((c) => c.service === 'Charge/SDKTest').length, before + 1, 'checked with Lyra');
    const shown = await show();
    assert.equal(shown.provider, 'lyra');
    assert.equal(shown.configured, true);
    assert.equal(shown.shop_id, DEMO_SHOP.shopId);
    assert.equal(shown.api_url, fake.apiUrl);
    assert.equal(shown.static_url, fake.staticUrl);
    assert.equal(shown.mode, 'TEST');
    const text = (await run(['tenant', 'show', '--tenant', tenant])).stdout;
    assert.match(text, new RegExp(`provider\\s+lyra  shop ${DEMO_SHOP.shopId}  TEST`));
    for (const out of [set.stdout, JSON.stringify(shown), text]) {
      for (const secret of [DEMO_SHOP.password, DEMO_SHOP.hmacKey, 'testpublickey_']) {
        assert.ok(!out.includes(secret), 'no secret is shown');
      }
    }
    const back = await run(['tenant', 'set-provider', '--tenant', tenant, '--provider', 'sandbox', '--json']);
    assert.equal(back.code, 0, back.stderr);
    const sandbox = await show();
    assert.equal(sandbox.provider, 'sandbox');
    assert.equal(sandbox.configured, false);
    assert.equal(sandbox.shop_id, undefined);
  });
});
