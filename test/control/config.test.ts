import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createBody, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { ControlClient, createUser } from './control-client.ts';

describe(`back office configuration: API keys and tenant settings (${ENGINE})`, { timeout: 120_000 }, () => {
  let t: TestApp;
  let c: ControlClient;
  before(async () => {
    t = await startTestApp();
    await createUser(t, 'manager', t.tenant.tenantId);
    c = await new ControlClient(t).signedIn('manager');
  });
  after(() => t.close());

  const createWith = (key: string) =>
    t.call({
      method: 'POST',
      url: '/api/payment-requests/',
      payload: createBody(),
      tenant: null,
      headers: { 'x-api-key': key },
    });

  test('a key is created with a label, shown once, works at once; revoked after confirmation it answers 403', async () => {
    await c.get('/control/keys');
    const created = await c.post('/control/keys', { tenant: t.tenant.tenantId, label: 'Night audit PMS' });
    assert.equal(created.statusCode, 303);
    const page = await c.get(String(created.headers.location));
    const key = /id="new-key" class="key" readonly value="([^"]+)"/.exec(page.body)?.[1];
    assert.match(key ?? '', /^[2-9A-HJ-NP-Za-km-z]{8}\.[2-9A-HJ-NP-Za-km-z]{56}$/);
    assert.match(page.body, /shown this once/);
    assert.match(page.body, /data-copy="new-key"/);
    const prefix = (key ?? '').split('.')[0] ?? '';
    const again = await c.get('/control/keys');
    assert.ok(!again.body.includes(key ?? 'x'), 'never shown again');
    assert.ok(again.body.includes(prefix) && again.body.includes('Night audit PMS'));

    assert.equal((await createWith(key ?? '')).statusCode, 201);
    const confirm = await c.get(`/control/keys/${prefix}/confirm-revoke`);
    assert.match(confirm.body, /Revocation is final/);
    const revoked = await c.post(`/control/keys/${prefix}/revoke`, { tenant: t.tenant.tenantId });
    assert.equal(revoked.statusCode, 303);
    assert.equal((await createWith(key ?? '')).statusCode, 403);
    // Revocation is final: enabling is refused with the reason.
    const enable = await c.post(`/control/keys/${prefix}/enable`, {});
    assert.match((await c.get(String(enable.headers.location))).body, /revocation is final/);
    assert.equal((await createWith(key ?? '')).statusCode, 403);
    const audit = await t.repos.audit.list({ tenantId: t.tenant.tenantId, limit: 10 });
    assert.deepEqual(
      audit.filter((a) => a.action.startsWith('key_')).map((a) => [a.action, a.target, a.outcome]),
      [
        ['key_enabled', prefix, 'refused'],
        ['key_revoked', prefix, 'ok'],
        ['key_created', prefix, 'ok'],
      ],
    );
  });

  test('disable and enable apply to the very next API call', async () => {
    await c.get('/control/keys');
    const { prefix, key } = t.tenant;
    await c.post(`/control/keys/${prefix}/disable`, {});
    assert.equal((await createWith(key)).statusCode, 401);
    await c.post(`/control/keys/${prefix}/enable`, {});
    assert.equal((await createWith(key)).statusCode, 201);
  });

  test('a key label is required; a past expiry is refused; nothing is created', async () => {
    await c.get('/control/keys');
    const before = (await t.repos.apiKeys.list(t.tenant.tenantId)).length;
    const cases: Record<string, string>[] = [
      { label: '' },
      { label: 'x', expires_at: '2001-01-01' },
      { label: 'x', expires_at: 'soon' },
    ];
    for (const fields of cases) {
      await c.get('/control/keys');
      const r = await c.post('/control/keys', { tenant: t.tenant.tenantId, ...fields });
      // The form again with the problem, as every back-office form answers one.
      assert.equal(r.statusCode, 422, JSON.stringify(fields));
      assert.match(r.body, /not valid; nothing was saved/);
    }
    assert.equal((await t.repos.apiKeys.list(t.tenant.tenantId)).length, before);
  });

  test('settings: every problem shown beside its field and nothing saved; valid values saved', async () => {
    const form = await c.get('/control/settings');
    assert.match(form.body, /name="hold_days"/);
    const tenantBefore = await t.repos.tenants.find(t.tenant.tenantId);
    const bad = await c.post('/control/settings', {
      name: 'Renamed',
      sender_email: 'not-an-address',
      timezone: 'Europe/Paris',
      hold_days: '99',
      link_lifetime_days: '30',
      guarantee_max_asks: '2',
      create_rate_limit: '',
    });
    assert.equal(bad.statusCode, 422);
    assert.match(bad.body, /id="s-sender_email-problem" class="problem">Must be an e-mail address/);
    assert.match(bad.body, /id="s-hold_days-problem" class="problem">Must be a whole number from 1 to 30/);
    assert.match(bad.body, /value="Renamed"/, 'what was typed is kept');
    assert.deepEqual(await t.repos.tenants.find(t.tenant.tenantId), tenantBefore, 'nothing saved');

    const good = await c.post('/control/settings', {
      name: 'Hôtel du Parc',
      sender_email: 'desk@parc.example',
      confirmation_email: 'on',
      timezone: 'europe/zurich',
      hold_days: '5',
      link_lifetime_days: '14',
      guarantee_ask_guest: 'on',
      guarantee_max_asks: '3',
      create_rate_limit: '60',
    });
    assert.equal(good.statusCode, 303);
    assert.match((await c.get(String(good.headers.location))).body, /Saved\./);
    const after = await t.repos.tenants.find(t.tenant.tenantId);
    assert.deepEqual(
      [
        after?.name,
        after?.sender_email,
        after?.confirmation_email,
        after?.timezone,
        after?.hold_days,
        after?.link_lifetime_days,
        after?.guarantee_ask_guest,
        after?.guarantee_max_asks,
        after?.create_rate_limit,
      ],
      ['Hôtel du Parc', 'desk@parc.example', true, 'Europe/Zurich', 5, 14, true, 3, 60],
    );
    // An unticked box is "off".
    await c.post('/control/settings', {
      name: 'Hôtel du Parc',
      sender_email: '',
      timezone: 'Europe/Zurich',
      hold_days: '5',
      link_lifetime_days: '14',
      guarantee_max_asks: '3',
      create_rate_limit: '',
    });
    const cleared = await t.repos.tenants.find(t.tenant.tenantId);
    assert.deepEqual(
      [cleared?.confirmation_email, cleared?.sender_email, cleared?.create_rate_limit],
      [false, null, null],
    );
    const audit = await t.repos.audit.list({ action: 'settings_changed', limit: 5 });
    assert.deepEqual(
      audit.map((a) => a.outcome),
      ['ok', 'ok', 'refused'],
    );
  });

  test('settings show the provider account read-only: provider, mode, shop id, never a secret', async () => {
    const tenant = t.tenant;
    const before = await c.get(`/control/settings?tenant=${tenant.tenantId}`);
    assert.equal(before.statusCode, 200);
    assert.match(before.body, /<h2 id="provider-account">Payment provider account<\/h2>/);
    assert.match(before.body, /<dt>Provider<\/dt><dd>(None yet|Sandbox \(no real payments\))<\/dd>/);

    await t.repos.providerAccounts.set(tenant.tenantId, {
      provider: 'lyra',
      shopId: '73239078',
      apiUrl: 'https://api.lyra.example/api-payment/',
      staticUrl: null,
      mode: 'PRODUCTION',
      secretsSealed: 'SEALED-SECRET-NEVER-SHOWN',
    });
    const lyra = await c.get(`/control/settings?tenant=${tenant.tenantId}`);
    assert.equal(lyra.statusCode, 200);
    assert.match(lyra.body, /<dt>Provider<\/dt><dd>Lyra<\/dd>/);
    assert.match(lyra.body, /<dt>Mode<\/dt><dd>PRODUCTION<\/dd>/);
    assert.match(lyra.body, /<dt>Shop ID<\/dt><dd>73239078<\/dd>/);
    assert.ok(!lyra.body.includes('SEALED-SECRET-NEVER-SHOWN'), 'no secret, not even sealed');
    // Read-only: no field of the settings form carries it.
    assert.ok(!/name="shop_id"|name="mode"/.test(lyra.body));

    await t.repos.providerAccounts.set(tenant.tenantId, {
      provider: 'stripe',
      apiUrl: 'https://api.stripe.com/',
      mode: 'TEST',
      secretsSealed: 'SEALED-STRIPE-SECRET-NEVER-SHOWN',
      webhookEndpointId: 'we_123',
    });
    const stripe = await c.get(`/control/settings?tenant=${tenant.tenantId}`);
    assert.match(stripe.body, /<dt>Provider<\/dt><dd>Stripe<\/dd>/);
    assert.match(stripe.body, /<dt>Mode<\/dt><dd>TEST<\/dd>/);
    assert.match(stripe.body, /<dt>Where Stripe sends its events<\/dt><dd>http:\/\/[^<]+\/ipn\/stripe\/<\/dd>/);
    assert.match(stripe.body, /<dt>Webhook endpoint at Stripe<\/dt><dd>Created by payreq<\/dd>/);
    assert.ok(!stripe.body.includes('SEALED-STRIPE-SECRET-NEVER-SHOWN'), 'no secret, not even sealed');
  });

  test('settings: staff reading French or German read each problem in their language', async () => {
    for (const [language, email, days] of [
      ['fr', 'Doit être une adresse e-mail', 'Doit être un nombre entier de 1 à 30'],
      ['de', 'Muss eine E-Mail-Adresse sein', 'Muss eine ganze Zahl von 1 bis 30 sein'],
    ] as const) {
      await c.get(`/control/language/${language}?back=/control/settings`);
      const worded = await c.post('/control/settings', {
        name: 'Renamed',
        sender_email: 'not-an-address',
        timezone: 'Europe/Paris',
        hold_days: '99',
        link_lifetime_days: '30',
        create_rate_limit: '',
      });
      assert.equal(worded.statusCode, 422);
      assert.match(worded.body, new RegExp(`id="s-sender_email-problem" class="problem">${email}<`));
      assert.match(worded.body, new RegExp(`id="s-hold_days-problem" class="problem">${days}<`));
    }
    await c.get('/control/language/en?back=/control/settings');
  });

  test('a key form the page cannot send (a field twice, a label over its 100 characters): refused, nothing created', async () => {
    const before = (await t.repos.apiKeys.list(t.tenant.tenantId)).length;
    const cases: Record<string, string | string[]>[] = [
      { label: ['PMS', 'PMS again'] },
      { label: 'x'.repeat(101) },
      { label: 'PMS', expires_at: ['2099-01-01', '2099-01-02'] },
    ];
    for (const fields of cases) {
      await c.get('/control/keys');
      const r = await c.post('/control/keys', { tenant: t.tenant.tenantId, ...fields });
      assert.equal(r.statusCode, 422, JSON.stringify(fields));
      assert.match(r.body, /not valid; nothing was saved/);
    }
    // A hotel named twice names none: as any other hotel's id, 404.
    await c.get('/control/keys');
    const twice = await c.post('/control/keys', { tenant: [t.tenant.tenantId, t.tenant.tenantId], label: 'PMS' });
    assert.equal(twice.statusCode, 404);
    assert.equal((await t.repos.apiKeys.list(t.tenant.tenantId)).length, before);
  });

  test('settings the form cannot send (a box not "on", a value twice, text over 1000 characters): each refused beside its field, nothing saved', async () => {
    const tenantBefore = await t.repos.tenants.find(t.tenant.tenantId);
    const refusals = (await t.repos.audit.list({ action: 'settings_changed', limit: 50 })).length;
    await c.get('/control/settings');
    const r = await c.post('/control/settings', {
      name: ['Renamed', 'Renamed again'],
      sender_email: 'desk@parc.example',
      confirmation_email: 'yes',
      timezone: 'Europe/Paris',
      hold_days: '99',
      address: 'x'.repeat(1001),
    });
    assert.equal(r.statusCode, 422);
    assert.match(r.body, /id="s-name-problem" class="problem">At most 200 characters</);
    assert.match(r.body, /id="s-confirmation_email-problem" class="problem">Must be on or off</);
    assert.match(r.body, /id="s-address-problem" class="problem">At most 300 characters</);
    // The domain's problems of the other fields are shown in the same answer.
    assert.match(r.body, /id="s-hold_days-problem" class="problem">Must be a whole number from 1 to 30</);
    assert.doesNotMatch(r.body, /s-sender_email-problem/);
    assert.deepEqual(await t.repos.tenants.find(t.tenant.tenantId), tenantBefore, 'nothing saved');
    const audit = await t.repos.audit.list({ action: 'settings_changed', limit: 50 });
    assert.equal(audit.length, refusals + 1);
    assert.equal(audit[0]?.outcome, 'refused');
    // A hotel named twice names none: 404, and nothing saved either.
    await c.get('/control/settings');
    const twice = await c.post('/control/settings', { tenant: [t.tenant.tenantId, t.tenant.tenantId], name: 'X' });
    assert.equal(twice.statusCode, 404);
    assert.deepEqual(await t.repos.tenants.find(t.tenant.tenantId), tenantBefore);
  });
});
