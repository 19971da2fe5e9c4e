import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { makePng, oversizedPng, SVG_LOGO } from '../helpers/images.ts';
import { ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { ControlClient, createUser } from './control-client.ts';

const FORM = {
  name: 'Hôtel des Tests',
  sender_email: '',
  confirmation_email: 'on',
  timezone: 'Europe/Paris',
  hold_days: '6',
  link_lifetime_days: '7',
  create_rate_limit: '',
};

describe(`back office: the guest page's settings and the logo (${ENGINE})`, { timeout: 180_000 }, () => {
  let t: TestApp;
  let c: ControlClient;
  const png = makePng(20, 10);
  const tenant = () => t.repos.tenants.find(t.tenant.tenantId);

  before(async () => {
    t = await startTestApp();
    await createUser(t, 'manager', t.tenant.tenantId);
    c = await new ControlClient(t).signedIn('manager');
  });
  after(() => t.close());

  test('the form shows the display fields under "Guest page" and saves them, normalised', async () => {
    const page = await c.get('/control/settings');
    assert.match(page.body, /<legend>Guest page<\/legend>/);
    assert.match(page.body, /<textarea id="s-address" name="address"/);
    assert.match(page.body, /<input id="s-phone" name="phone" type="tel"/);
    assert.match(page.body, /<input id="s-terms_url" name="terms_url" type="url"/);
    const saved = await c.post('/control/settings', {
      ...FORM,
      tenant: t.tenant.tenantId,
      address: '12 rue du Lac\r\n74000 Annecy',
      phone: '+33 4 50 00 00 00',
      contact_email: 'desk@lac.example',
      terms_url: 'https://lac.example/conditions',
      accent_color: '#1F4E79',
    });
    assert.equal(saved.statusCode, 303, saved.body);
    const after = await tenant();
    assert.equal(after?.address, '12 rue du Lac\n74000 Annecy');
    assert.equal(after?.accent_color, '#1f4e79');
    const shown = await c.get('/control/settings');
    assert.match(shown.body, />12 rue du Lac\n74000 Annecy<\/textarea>/);
  });

  test('a colour without contrast and an http link: 422, each problem beside its field, nothing saved', async () => {
    const before = await tenant();
    await c.get('/control/settings');
    const r = await c.post('/control/settings', {
      ...FORM,
      tenant: t.tenant.tenantId,
      address: '',
      phone: '',
      contact_email: '',
      terms_url: 'http://lac.example/',
      accent_color: '#ffcc00',
    });
    assert.equal(r.statusCode, 422);
    assert.match(
      r.body,
      /id="s-accent_color-problem" class="problem">A contrast of 1\.\d\d:1 with white text or the page; at least 4\.5:1 is needed \(WCAG AA\)/,
    );
    assert.match(r.body, /id="s-terms_url-problem" class="problem">Must be an https:\/\/ address/);
    assert.deepEqual(await tenant(), before);
  });

  test('a PNG uploaded is stored, shown on the page, and served; the audit says so', async () => {
    await c.get('/control/settings');
    const r = await c.postMultipart(
      '/control/settings/logo',
      { tenant: t.tenant.tenantId },
      { logo: { name: 'logo.png', type: 'image/png', bytes: png } },
    );
    assert.equal(r.statusCode, 303, r.body);
    const stored = await tenant();
    assert.equal(stored?.logo_type, 'image/png');
    const url = `/logo/${t.tenant.tenantId}/${stored?.logo_hash}`;
    assert.ok((await c.get('/control/settings')).body.includes(`<img class="logo-preview" src="${url}"`));
    const served = await t.app.inject({ method: 'GET', url });
    assert.deepEqual(served.rawPayload, png);
    const audit = await t.repos.audit.list({ tenantId: t.tenant.tenantId, limit: 1 });
    assert.deepEqual(
      audit.map((a) => [a.action, a.outcome]),
      [['logo_changed', 'ok']],
    );
  });

  test('SVG, too big, not an image, no file: 422 with the reason beside the file input, the logo unchanged', async () => {
    const before = await tenant();
    const cases: [string, { name: string; type: string; bytes: Buffer } | undefined, RegExp][] = [
      ['svg', { name: 'logo.svg', type: 'image/svg+xml', bytes: SVG_LOGO }, /SVG is not accepted/],
      // Declared a PNG, named a PNG, and starting like one: still refused by its size.
      [
        'big',
        { name: 'logo.png', type: 'image/png', bytes: oversizedPng(2 * 1024 * 1024) },
        /the file is larger than 200 kB/,
      ],
      [
        'gif',
        { name: 'logo.png', type: 'image/png', bytes: Buffer.from('GIF89a not a png') },
        /the file is not a PNG, JPEG or WebP/,
      ],
      ['empty', { name: '', type: 'application/octet-stream', bytes: Buffer.alloc(0) }, /the file is empty/],
      ['none', undefined, /the file is empty/],
    ];
    for (const [label, file, reason] of cases) {
      await c.get('/control/settings');
      const r = await c.postMultipart(
        '/control/settings/logo',
        { tenant: t.tenant.tenantId },
        file ? { logo: file } : {},
      );
      assert.equal(r.statusCode, 422, `${label}: ${r.body.slice(0, 300)}`);
      assert.match(r.body, new RegExp(`id="logo-problem" class="problem">${reason.source}`), label);
      assert.match(r.body, /aria-invalid="true" aria-describedby="logo-problem logo-hint"/);
    }
    assert.deepEqual(await tenant(), before);
  });

  test('an upload without the CSRF token is refused (403) and changes nothing; so is one for another tenant (404)', async () => {
    const before = await tenant();
    const other = await t.newTenant('Autre Hôtel');
    await c.get('/control/settings');
    const forged = await c.postMultipart(
      '/control/settings/logo',
      { _csrf: 'forged', tenant: t.tenant.tenantId },
      { logo: { name: 'x.png', type: 'image/png', bytes: makePng(2, 2) } },
    );
    assert.equal(forged.statusCode, 403);
    const elsewhere = await c.postMultipart(
      '/control/settings/logo',
      { tenant: other.tenantId },
      { logo: { name: 'x.png', type: 'image/png', bytes: makePng(2, 2) } },
    );
    assert.equal(elsewhere.statusCode, 404);
    assert.equal((await t.repos.tenants.find(other.tenantId))?.logo_hash, null);
    assert.deepEqual(await tenant(), before);
  });

  test('the other forms stay urlencoded only; the logo is removed with its own button', async () => {
    await c.get('/control/settings');
    const multipartSettings = await c.postMultipart('/control/settings', { ...FORM, tenant: t.tenant.tenantId });
    assert.equal(multipartSettings.statusCode, 415);
    await c.get('/control/settings');
    const removed = await c.post('/control/settings/logo/remove', { tenant: t.tenant.tenantId });
    assert.equal(removed.statusCode, 303);
    assert.equal((await tenant())?.logo_hash, null);
    assert.match((await c.get('/control/settings')).body, /No logo yet\./);
  });
});
