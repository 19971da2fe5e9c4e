import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { makePng } from '../helpers/images.ts';
import { ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { ControlClient, createUser } from './control-client.ts';

const cursorOf = (text: string) => Buffer.from(text).toString('base64url');
const SOME_UUID = '6f1c2a52-7d3e-4a41-9a55-0c8f5b0e2d11';

/** The message a back-office page shows in its heading. */
const heading = (body: string) => /<h1[^>]*>([^<]*)<\/h1>/.exec(body)?.[1] ?? '';

/**
 * What once answered 500 in the back office answers 4xx with a page that says what is wrong,
 * and changes nothing: a database error reached by a value no field needs.
 */
describe(`back office: hostile input is a 4xx with a clear page, never a 500 (${ENGINE})`, () => {
  let t: TestApp;
  let c: ControlClient;
  before(async () => {
    t = await startTestApp();
    await createUser(t, 'root');
    c = await new ControlClient(t).signedIn('root');
  });
  after(() => t.close());

  test('a failed sign-in is refused and audited whatever its username holds (NUL, C0 and C1 controls)', async () => {
    const anonymous = new ControlClient(t, '192.0.2.7');
    for (const username of ['a\u0000b', '\u001b[31mroot', '\u0085x', 'root\u0000']) {
      await anonymous.get('/control/sign-in');
      const r = await anonymous.post('/control/sign-in', { username, password: 'whatever it is' });
      assert.equal(r.statusCode, 401, r.body);
      assert.match(r.body, /Wrong username or password/);
    }
    const audited = (await t.repos.audit.list({ action: 'sign_in', limit: 10 }))
      .filter((row) => row.outcome === 'refused')
      .map((row) => [row.username, row.outcome]);
    assert.deepEqual(audited, [
      ['root\\u0000', 'refused'],
      ['\\u0085x', 'refused'],
      ['\\u001b[31mroot', 'refused'],
      ['a\\u0000b', 'refused'],
    ]);
  });

  test('control characters in a search or any address parameter: 400 saying so', async () => {
    for (const query of ['q=%00', 'q=a%00b', 'status=%01', 'tenant=%00', 'q=%7F']) {
      const r = await c.get(`/control/requests?${query}`);
      assert.equal(r.statusCode, 400, `${query}: ${r.body}`);
      assert.match(heading(r.body), /control characters \(such as NUL\)/, query);
    }
    // Tab and line breaks are text; a plain search still works.
    assert.equal((await c.get('/control/requests?q=a%09b')).statusCode, 200);
  });

  test('a date filter that is not a day of the calendar: 400 naming the filter; empty is no filter', async () => {
    for (const field of ['checkin_from', 'checkin_to', 'created_from', 'created_to']) {
      for (const value of ['2026-02-31', '2026-13-01', '9999-99-99', '2026-1-1', 'soon']) {
        const r = await c.get(`/control/requests?${field}=${value}`);
        assert.equal(r.statusCode, 400, `${field}=${value}: ${r.body}`);
        assert.equal(
          heading(r.body),
          `${field}: not a date. Dates are written YYYY-MM-DD, exist in the calendar and run from 0100-01-01 to 9999-12-31.`,
        );
      }
      assert.equal((await c.get(`/control/requests?${field}=2026-02-28`)).statusCode, 200);
      assert.equal((await c.get(`/control/requests?${field}=`)).statusCode, 200);
    }
    // In the page's language.
    const fr = await c.get('/control/requests?checkin_from=2026-02-31', { 'accept-language': 'fr' });
    assert.equal(fr.statusCode, 400);
    assert.match(heading(fr.body), /^checkin_from : ce n’est pas une date/);
  });

  test('a page link (cursor) dated outside years 0001 to 9999: 400 invalid page link', async () => {
    for (const at of ['-271821-04-20T00:00:00.000Z', '+275760-09-13T00:00:00.000Z', '0000-01-01T00:00:00.000Z']) {
      const r = await c.get(`/control/requests?after=${cursorOf(`${at}|${SOME_UUID}`)}`);
      assert.equal(r.statusCode, 400, `${at}: ${r.body}`);
      assert.match(heading(r.body), /^Invalid page link: /);
    }
    const edge = await c.get(`/control/requests?after=${cursorOf(`0001-01-01T00:00:00.000Z|${SOME_UUID}`)}`);
    assert.equal(edge.statusCode, 200);
  });

  test('a parameter given twice counts once (the first), like a form field', async () => {
    for (const query of ['username=&username=0', 'action=a&action=b', 'tenant=&tenant=x']) {
      const r = await c.get(`/control/audit?${query}`);
      assert.equal(r.statusCode, 200, `${query}: ${r.body}`);
    }
    assert.equal((await c.get('/control/requests?q=a&q=b&status=PAID&status=X')).statusCode, 200);
  });

  test('an API key with an impossible expiry or a label holding NUL: refused, nothing created', async () => {
    const before = (await t.repos.apiKeys.list(t.tenant.tenantId)).length;
    for (const expires_at of ['9999-99-99', '2026-02-31', '0000-00-00', '99999-01-01']) {
      await c.get('/control/keys');
      const r = await c.post('/control/keys', { tenant: t.tenant.tenantId, label: 'PMS', expires_at });
      assert.equal(r.statusCode, 422, `${expires_at}: ${r.body}`);
      assert.match(r.body, /Some values are not valid; nothing was saved/);
    }
    for (const label of ['a\u0000b', '\u0000', 'PMS\u0007']) {
      await c.get('/control/keys');
      const r = await c.post('/control/keys', { tenant: t.tenant.tenantId, label });
      assert.equal(r.statusCode, 400, r.body);
      assert.match(heading(r.body), /control characters/);
    }
    assert.equal((await t.repos.apiKeys.list(t.tenant.tenantId)).length, before);
  });

  test('a logo upload cut short (no closing boundary): 400 saying so, the logo unchanged', async () => {
    await c.get(`/control/settings?tenant=${t.tenant.tenantId}`);
    const boundary = 'cutShort42';
    const whole = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${c.csrf}\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="tenant"\r\n\r\n${t.tenant.tenantId}\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="logo"; filename="logo.png"\r\nContent-Type: image/png\r\n\r\n`,
      ),
      makePng(8, 4),
    ]);
    for (const payload of [whole, whole.subarray(0, whole.length - 20), whole.subarray(0, 60)]) {
      const r = await t.app.inject({
        method: 'POST',
        url: '/control/settings/logo',
        headers: { cookie: c.cookieHeader(), 'content-type': `multipart/form-data; boundary=${boundary}` },
        payload,
      });
      assert.equal(r.statusCode, 400, r.body);
      assert.match(heading(r.body), /The upload was cut short or is not a valid form/);
    }
    assert.equal((await t.repos.tenants.find(t.tenant.tenantId))?.logo_hash, null);
  });
});
