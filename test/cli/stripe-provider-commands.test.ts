import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FAKE_KEYS, type StripeFake, startStripeFake } from '../fakes/stripe/stripe-fake.ts';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.ts';
import { assertFails, cliEnv, killAll, parseJson, payreq, pgliteDataDir, scratchDir } from './payreq-process.ts';

const PUBLIC = 'https://pay.hotel.example';
const EVENTS = [
  'checkout.session.completed',
  'checkout.session.expired',
  'payment_intent.succeeded',
  'payment_intent.payment_failed',
  'payment_intent.canceled',
  'payment_intent.amount_capturable_updated',
  'charge.refunded',
  'refund.updated',
  'refund.failed',
  'charge.expired',
  'charge.dispute.created',
];

describe(`payreq tenant set-provider --provider stripe against the Stripe fake (${ENGINE})`, {
  timeout: 600_000,
}, () => {
  const scratch = scratchDir();
  let testDb: TestDatabase | undefined;
  let env: NodeJS.ProcessEnv;
  let fake: StripeFake;
  let tenant: string;
  const run = (args: string[], input?: string) => payreq(args, env, scratch.dir, 60_000, input);
  const show = async () =>
    parseJson<{ provider_account: Record<string, unknown> }>(
      await run(['tenant', 'show', '--tenant', tenant, '--json']),
    ).provider_account;
  const stripeArgs = (...extra: string[]) => [
    'tenant',
    'set-provider',
    '--tenant',
    tenant,
    '--provider',
    'stripe',
    '--api-url',
    fake.apiUrl,
    '--secrets-stdin',
    ...extra,
  ];
  const endpoints = () => [...fake.account.objects.values()].filter((o) => o.object === 'webhook_endpoint');

  before(async () => {
    fake = await startStripeFake();
    if (ENGINE === 'postgres') testDb = await createTestDatabase();
    env = cliEnv({
      DATABASE_URL: testDb ? testDb.url : `pglite://${pgliteDataDir(`${scratch.dir}/data`)}`,
      PUBLIC_BASE_URL: PUBLIC,
    });
    tenant = parseJson<{ id: string }>(await run(['tenant', 'create', '--name', 'Hôtel Stripe', '--json'])).id;
  });
  after(async () => {
    killAll();
    await fake.close();
    await testDb?.drop();
    scratch.cleanup();
  });

  test('a wrong key is refused with a clear error, nothing stored, no endpoint made; bad input likewise', async () => {
    const wrong = await run(stripeArgs(), JSON.stringify({ secret_key: 'sk_test_51WrongKeyNobodyHas000000' }));
    assertFails(wrong, /^error: Stripe key check failed, nothing stored: .*Invalid API Key/);
    assert.doesNotMatch(wrong.stderr, /WrongKeyNobodyHas/, 'the key is never printed');
    const cases: [string[], string | undefined, RegExp][] = [
      [stripeArgs(), undefined, /standard input must be a JSON object \{"secret_key", "webhook_secret"\?\}/],
      [stripeArgs(), '{}', /"secret_key" is required/],
      [stripeArgs(), '{"secret_key": "pk_test_notasecretkey000"}', /must be a Stripe secret or restricted key/],
      [stripeArgs(), '{"secret_key": "sk_test_51Fine00000000", "webhook_secret": "nope"}', /whsec_/],
      [
        [...stripeArgs(), '--shop-id', 'x'],
        '{"secret_key": "sk_test_51Fine00000000"}',
        /--provider stripe takes no --shop-id/,
      ],
      [
        stripeArgs().filter((a) => a !== '--secrets-stdin'),
        undefined,
        /--secrets-stdin is required for --provider stripe/,
      ],
    ];
    for (const [args, input, why] of cases) assertFails(await run(args, input), why);
    assert.deepEqual(await show(), { provider: 'none', configured: false });
    assert.equal(endpoints().length, 0);
  });

  test('a good key without a webhook secret: payreq creates its endpoint at Stripe and keeps its secret; --json says so', async () => {
    const set = await run(stripeArgs('--json'), JSON.stringify({ secret_key: FAKE_KEYS.test }));
    assert.equal(set.code, 0, set.stderr);
    const out = parseJson<Record<string, unknown>>(set);
    assert.equal(out.provider, 'stripe');
    assert.equal(out.mode, 'TEST');
    assert.equal(out.configured, true);
    assert.equal(out.webhook_url, `${PUBLIC}/ipn/stripe/`);
    assert.deepEqual(out.webhook_events, EVENTS);
    assert.equal(out.webhook_endpoint_created, true);
    const [endpoint] = endpoints();
    assert.equal(endpoint?.url, `${PUBLIC}/ipn/stripe/`);
    assert.deepEqual(endpoint?.enabled_events, EVENTS);
    const shown = await show();
    for (const field of [
      'provider',
      'mode',
      'configured',
      'webhook_url',
      'webhook_events',
      'webhook_endpoint_created',
    ]) {
      assert.deepEqual(shown[field], out[field], `tenant show says ${field} the same`);
    }
    const text = (await run(['tenant', 'show', '--tenant', tenant])).stdout;
    assert.match(text, /provider\s+stripe {2}TEST/);
    for (const o of [set.stdout, JSON.stringify(shown), text]) {
      assert.ok(!o.includes(FAKE_KEYS.test) && !o.includes('whsec_'), 'no secret is shown');
    }
  });

  test('a webhook secret given: the operator configured the endpoint; payreq creates none', async () => {
    const before = endpoints().length;
    const set = await run(
      stripeArgs('--json'),
      JSON.stringify({ secret_key: FAKE_KEYS.test, webhook_secret: 'whsec_OperatorMadeThisOne0000' }),
    );
    assert.equal(set.code, 0, set.stderr);
    const out = parseJson<Record<string, unknown>>(set);
    assert.equal(out.webhook_endpoint_created, false);
    assert.equal(endpoints().length, before, 'no endpoint created');
    const text = await run(
      stripeArgs(),
      JSON.stringify({ secret_key: FAKE_KEYS.test, webhook_secret: 'whsec_OperatorMadeThisOne0000' }),
    );
    assert.match(
      text.stdout,
      /must send these events to https:\/\/pay\.hotel\.example\/ipn\/stripe\/: checkout\.session\.completed/,
    );
  });

  test('a live key is PRODUCTION', async () => {
    fake.addAccount(FAKE_KEYS.live);
    const set = await run(
      stripeArgs('--json'),
      JSON.stringify({ secret_key: FAKE_KEYS.live, webhook_secret: 'whsec_LiveEndpointSecret0000' }),
    );
    assert.equal(set.code, 0, set.stderr);
    assert.equal(parseJson<Record<string, unknown>>(set).mode, 'PRODUCTION');
  });
});
