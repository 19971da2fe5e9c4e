import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { deliverDueWebhooks, verifySignature } from '../../src/webhooks/index.ts';
import { createRequest, ENGINE, newKey, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { type Receiver, startReceiver } from '../webhooks/receiver.ts';
import { ControlClient, createUser } from './control-client.ts';

describe(`back office: webhooks, secret rotation, delivery log and resend (${ENGINE})`, { timeout: 120_000 }, () => {
  let t: TestApp;
  let c: ControlClient;
  let receiver: Receiver;
  let tenantId: string;

  before(async () => {
    // The receiver is on loopback: private targets allowed, as for a PMS on the premises.
    t = await startTestApp({ env: { WEBHOOKS_ALLOW_PRIVATE: 'on' } });
    const hotel = await t.repos.tenants.create({ name: 'Hôtel des Crochets', timezone: 'America/New_York' });
    tenantId = hotel.id;
    await createUser(t, 'hooks-manager', tenantId);
    await createUser(t, 'hooks-other', t.tenant.tenantId);
    await createUser(t, 'hooks-root');
    c = await new ControlClient(t).signedIn('hooks-manager');
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver?.close();
    await t.close();
  });

  const deliver = () =>
    deliverDueWebhooks(
      { db: t.db, repos: t.repos, secretKeys: t.app.payreq.secretKeys },
      { retryBaseMs: 10, timeoutMs: 2000, allowPrivate: true },
    );
  const endpoints = () => t.repos.webhooks.listEndpoints(tenantId);
  const audits = async () =>
    (await t.repos.audit.list({ tenantId, limit: 50 }))
      .filter((a) => a.action.startsWith('webhook_'))
      .map((a) => [a.action, a.outcome]);
  const secretOn = (body: string) => /id="new-secret" class="key" readonly value="([^"]+)"/.exec(body)?.[1];

  test('an endpoint is added with its secret shown once; a refused URL adds nothing and says why', async () => {
    const list = await c.get('/control/webhooks');
    assert.equal(list.statusCode, 200);
    assert.match(list.body, /<a href="\/control\/webhooks" aria-current="page">Webhooks<\/a>/);
    assert.match(list.body, /No endpoint yet/);
    const created = await c.post('/control/webhooks', {
      tenant: tenantId,
      url: receiver.url,
      events: ['payment_request.not_initiated', 'payment_request.cancelled'],
    });
    assert.equal(created.statusCode, 303, created.body);
    const page = await c.get(String(created.headers.location));
    const secret = secretOn(page.body);
    assert.match(secret ?? '', /^whsec_[A-Za-z0-9_-]{43}$/);
    assert.match(page.body, /shown this once/);
    assert.match(page.body, /Not initiated, Cancelled/);
    const again = await c.get('/control/webhooks');
    assert.equal(secretOn(again.body), undefined, 'never shown again');
    assert.ok(!again.body.includes(secret ?? 'x'));
    assert.ok(again.body.includes(receiver.url));

    for (const url of ['http://169.254.169.254/latest/meta-data/', 'ftp://pms.example.com/', '']) {
      await c.get('/control/webhooks');
      const r = await c.post('/control/webhooks', { tenant: tenantId, url });
      assert.equal(r.statusCode, 422, url);
      assert.match(r.body, /role="alert">The endpoint was not added: /);
      assert.match(
        r.body,
        url.includes('169.254')
          ? /169\.254\.169\.254, a cloud metadata address\. Webhooks go to addresses on the internet/
          : /the address must start with https:\/\/|the URL is required/,
      );
      assert.doesNotMatch(r.body, /WEBHOOKS_ALLOW_PRIVATE/, 'no server setting shown to hotel staff');
    }
    // In the reader's language: French and German pages say it in French and German.
    for (const [language, said] of [
      ['fr', /L’adresse n’a pas été ajoutée : 169\.254\.169\.254, une adresse de métadonnées du cloud\./],
      ['de', /Die Adresse wurde nicht hinzugefügt: 169\.254\.169\.254: eine Metadaten-Adresse der Cloud\./],
    ] as const) {
      await c.get('/control/webhooks', { 'accept-language': language });
      c.headers = { 'accept-language': language };
      const r = await c.post('/control/webhooks', { tenant: tenantId, url: 'http://169.254.169.254/' });
      c.headers = {};
      assert.equal(r.statusCode, 422);
      assert.match(r.body, said);
      assert.doesNotMatch(r.body, /refused:|resolves to|WEBHOOKS_ALLOW_PRIVATE/);
    }
    assert.equal((await endpoints()).length, 1);
    assert.deepEqual(await audits(), [
      ['webhook_created', 'refused'],
      ['webhook_created', 'refused'],
      ['webhook_created', 'refused'],
      ['webhook_created', 'refused'],
      ['webhook_created', 'refused'],
      ['webhook_created', 'ok'],
    ]);
  });

  test('a URL sent twice adds nothing: 422, the first of them not taken for the one meant', async () => {
    const before = (await endpoints()).length;
    await c.get('/control/webhooks');
    const r = await c.post('/control/webhooks', { tenant: tenantId, url: [receiver.url, receiver.url] });
    assert.equal(r.statusCode, 422, r.body);
    assert.equal((await endpoints()).length, before);
  });

  test('the delivery log shows each attempt in the hotel zone; a delivery is sent again from it', async () => {
    const [endpoint] = await endpoints();
    assert.ok(endpoint);
    const key = await newKey(t.repos, tenantId);
    await createRequest(t, { reservation_ref: 'HOOK-LOG' }, key);
    await deliver();
    await receiver.waitFor(1);
    const log = await c.get(`/control/webhooks/${endpoint.id}`);
    assert.equal(log.statusCode, 200);
    assert.match(log.body, /Not initiated<br><small>#\d+<\/small>/);
    assert.match(log.body, /Attempt 1, [^<]*(EST|EDT|GMT-[45]): HTTP 200 \(\d+ ms\)/);
    assert.match(log.body, /class="status ok">Delivered/);
    const list = await c.get('/control/webhooks');
    assert.match(list.body, /(EST|EDT|GMT-[45])<br><small>HTTP 200<\/small>/);

    const delivery = /action="\/control\/webhooks\/[^/]+\/deliveries\/(\d+)\/resend"/.exec(log.body)?.[1];
    assert.ok(delivery);
    const resent = await c.post(`/control/webhooks/${endpoint.id}/deliveries/${delivery}/resend`);
    assert.equal(resent.statusCode, 303);
    assert.match((await c.get(String(resent.headers.location))).body, /Queued again/);
    await deliver();
    await receiver.waitFor(2);
    assert.equal(receiver.received[1]?.json.id, receiver.received[0]?.json.id, 'the same event, again');
    const after = await c.get(`/control/webhooks/${endpoint.id}`);
    assert.equal((after.body.match(/Attempt 1, /g) ?? []).length, 2, 'both attempts in the log');
    // A delivery id that is not this endpoint's queues nothing.
    await c.post(`/control/webhooks/${endpoint.id}/deliveries/999999999/resend`);
    assert.deepEqual((await audits()).slice(0, 2), [
      ['webhook_resent', 'refused'],
      ['webhook_resent', 'ok'],
    ]);
  });

  test('rotating asks first, shows the new secret once, and both secrets sign for the grace period', async () => {
    const [endpoint] = await endpoints();
    assert.ok(endpoint);
    const confirm = await c.get(`/control/webhooks/${endpoint.id}/confirm-rotate`);
    assert.match(confirm.body, /keeps signing beside it for 24 hours/);
    const rotated = await c.post(`/control/webhooks/${endpoint.id}/rotate`);
    assert.equal(rotated.statusCode, 303);
    const page = await c.get(String(rotated.headers.location));
    const secret = secretOn(page.body) ?? '';
    assert.match(secret, /^whsec_/);
    assert.match(page.body, /The new signing secret/);
    assert.match(page.body, /The previous secret also signs until/);
    assert.equal(secretOn((await c.get('/control/webhooks')).body), undefined);
    const n = receiver.received.length;
    await createRequest(t, { reservation_ref: 'HOOK-ROTATE' }, await newKey(t.repos, tenantId));
    await deliver();
    await receiver.waitFor(n + 1);
    const got = receiver.received[n];
    assert.ok(verifySignature(secret, got?.body ?? '', String(got?.headers['payreq-signature'])));
    assert.equal(String(got?.headers['payreq-signature']).split('v1=').length, 3, 'two signatures');
    assert.deepEqual((await audits())[0], ['webhook_secret_rotated', 'ok']);
  });

  test('disabling asks first and stops deliveries; enabling starts them again', async () => {
    const [endpoint] = await endpoints();
    assert.ok(endpoint);
    const confirm = await c.get(`/control/webhooks/${endpoint.id}/confirm-disable`);
    assert.match(confirm.body, /Nothing more is sent to it/);
    await c.post(`/control/webhooks/${endpoint.id}/disable`);
    assert.equal((await endpoints())[0]?.status, 'disabled');
    const list = await c.get('/control/webhooks');
    assert.match(list.body, /Disabled<\/span>/);
    assert.match(list.body, /disabled by hooks-manager in the back office/);
    const n = receiver.received.length;
    await createRequest(t, { reservation_ref: 'HOOK-OFF' }, await newKey(t.repos, tenantId));
    await deliver();
    assert.equal(receiver.received.length, n, 'nothing sent while disabled');
    await c.post(`/control/webhooks/${endpoint.id}/enable`);
    assert.equal((await endpoints())[0]?.status, 'enabled');
    await createRequest(t, { reservation_ref: 'HOOK-ON' }, await newKey(t.repos, tenantId));
    await deliver();
    await receiver.waitFor(n + 1);
    assert.deepEqual((await audits()).slice(0, 2), [
      ['webhook_enabled', 'ok'],
      ['webhook_disabled', 'ok'],
    ]);
  });

  test("another hotel's user gets 404 for every page and form of an endpoint; a superuser picks the hotel", async () => {
    const [endpoint] = await endpoints();
    assert.ok(endpoint);
    const other = await new ControlClient(t, '127.0.0.2').signedIn('hooks-other');
    await other.get('/control/webhooks');
    for (const path of ['', '/confirm-disable', '/confirm-rotate']) {
      assert.equal((await other.get(`/control/webhooks/${endpoint.id}${path}`)).statusCode, 404, path);
    }
    for (const path of ['/disable', '/rotate', '/deliveries/1/resend']) {
      assert.equal((await other.post(`/control/webhooks/${endpoint.id}${path}`)).statusCode, 404, path);
    }
    assert.equal((await other.get(`/control/webhooks?tenant=${tenantId}`)).statusCode, 404);
    assert.equal((await endpoints())[0]?.status, 'enabled');
    assert.equal((await endpoints())[0]?.secret_sealed, endpoint.secret_sealed);

    const root = await new ControlClient(t, '127.0.0.3').signedIn('hooks-root');
    const chooser = await root.get(`/control/webhooks?tenant=${tenantId}`);
    assert.match(chooser.body, /<select id="tenant-choice" name="tenant">/);
    assert.ok(chooser.body.includes(receiver.url));
    assert.equal((await root.get(`/control/webhooks/${endpoint.id}`)).statusCode, 200);
  });

  test('a form without its CSRF token changes nothing; the pages speak French and German', async () => {
    const [endpoint] = await endpoints();
    assert.ok(endpoint);
    const r = await c.post(`/control/webhooks/${endpoint.id}/disable`, { _csrf: 'forged' });
    assert.equal(r.statusCode, 403);
    assert.equal((await endpoints())[0]?.status, 'enabled');
    for (const [lang, words] of [
      ['fr', /Journal des envois/],
      ['de', /Zustellprotokoll/],
    ] as const) {
      await c.get(`/control/language/${lang}?back=/control/webhooks`);
      const list = await c.get('/control/webhooks');
      assert.match(list.body, words);
      assert.match(list.body, new RegExp(`<html lang="${lang}"`));
      const log = await c.get(`/control/webhooks/${endpoint.id}`);
      assert.match(log.body, lang === 'fr' ? /Tentative 1, / : /Versuch 1, /);
    }
    await c.get('/control/language/en?back=/control/webhooks');
  });
});
