import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { auditResponses, countRows, createBody, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

const BASE = '/api/payment-requests/';

interface Detail {
  field: string;
  message: string;
}

describe(`bad input on create (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    // No create rate limit: this file sends many creates on purpose.
    t = await startTestApp({ env: { CREATE_RATE_LIMIT: '0' } });
  });
  after(() => t.close());

  const raw = (payload: string | Buffer, contentType = 'application/json') =>
    t.call({ method: 'POST', url: BASE, payload, headers: { 'content-type': contentType } });
  const create = (body: unknown) => raw(JSON.stringify(body));

  /** Runs `send`, asserts the status and that no row appeared; returns the response. */
  async function refused(status: number, send: () => Promise<LightMyRequestResponse>) {
    const before = await countRows(t.db);
    const r = await send();
    assert.equal(r.statusCode, status, r.body);
    assert.match(String(r.headers['content-type']), /^application\/json/);
    assert.equal(typeof r.json().error, 'string');
    assert.equal(await countRows(t.db), before, 'no row created');
    return r;
  }
  /** A 422 whose details name exactly `fields` (each with a message). */
  async function invalid(body: unknown, fields: string[]) {
    const r = await refused(422, () => create(body));
    assert.equal(r.json().error, 'Validation failed');
    const details = r.json().details as Detail[];
    assert.ok(Array.isArray(details), r.body);
    for (const d of details) {
      assert.equal(typeof d.field, 'string');
      assert.equal(typeof d.message, 'string');
      assert.ok(d.message.length > 0);
    }
    assert.deepEqual([...new Set(details.map((d) => d.field))].sort(), [...fields].sort(), r.body);
    return details;
  }

  test('the control case: the valid body is a 201 and creates one row', async () => {
    const before = await countRows(t.db);
    assert.equal((await create(createBody())).statusCode, 201);
    assert.equal(await countRows(t.db), before + 1);
  });

  test('malformed JSON is a 400', async () => {
    for (const body of ['{', '{"request_type": }', "{'a': 1}", '{"a":1}}', 'undefined', '\u0000']) {
      const r = await refused(400, () => raw(body));
      assert.equal(r.json().error, 'Request body is not valid JSON');
    }
  });

  test('a content type other than JSON is a 415', async () => {
    const json = JSON.stringify(createBody());
    for (const ct of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/xml',
    ]) {
      const r = await refused(415, () => raw(json, ct));
      assert.equal(r.json().error, 'Content-Type must be application/json');
    }
    // JSON with a charset parameter is JSON.
    assert.equal((await raw(json, 'application/json; charset=utf-8')).statusCode, 201);
  });

  test('a body over 64 KiB is a 413, even when valid JSON', async () => {
    const big = JSON.stringify(createBody({ guest_phone: '1', padding: 'x'.repeat(70 * 1024) }));
    const r = await refused(413, () => raw(big));
    assert.equal(r.json().error, 'Request body is too large');
    // Just under the limit goes through to validation (and here, success: extra fields are ignored).
    const fits = JSON.stringify(createBody({ padding: 'x'.repeat(60 * 1024) }));
    assert.equal((await raw(fits)).statusCode, 201);
  });

  test('wrong types are a 422 with details [{field, message}] naming each field', async () => {
    await invalid(createBody({ amount: '150' }), ['amount']);
    await invalid(createBody({ amount: null }), ['amount']);
    await invalid(createBody({ request_type: 1 }), ['request_type']);
    await invalid(createBody({ guest_email: ['a@example.com'] }), ['guest_email']);
    await invalid(createBody({ guest_first_name: 42, guest_last_name: false }), [
      'guest_first_name',
      'guest_last_name',
    ]);
    await invalid(createBody({ guest_phone: 612345678 }), ['guest_phone']);
    await invalid(createBody({ reservation_ref: { id: 1 } }), ['reservation_ref']);
  });

  test('the body itself not being an object is a 422 about the body', async () => {
    for (const body of [[], [createBody()], 'a string', 42, true, null]) {
      await invalid(body, ['body']);
    }
  });

  test('missing required fields are a 422 naming each of them', async () => {
    const details = await invalid({}, [
      'request_type',
      'guest_email',
      'guest_first_name',
      'guest_last_name',
      'reservation_ref',
    ]);
    assert.ok(details.every((d) => d.message === 'is required'));
    const { guest_email: _e, reservation_ref: _r, ...partial } = createBody();
    await invalid(partial, ['guest_email', 'reservation_ref']);
  });

  test('request_type, currency and language outside their lists are a 422', async () => {
    await invalid(createBody({ request_type: 'REFUND' }), ['request_type']);
    await invalid(createBody({ request_type: 'deposit' }), ['request_type']);
    await invalid(createBody({ currency: 'GBP' }), ['currency']);
    await invalid(createBody({ currency: 'eur' }), ['currency']);
    await invalid(createBody({ language: 'es' }), ['language']);
    await invalid(createBody({ language: 'FR' }), ['language']);
  });

  test('a malformed e-mail is a 422 on guest_email', async () => {
    for (const email of ['', 'plain', 'no-at.example.com', 'a@', '@example.com', 'a b@example.com', 'a@@example.com']) {
      await invalid(createBody({ guest_email: email }), ['guest_email']);
    }
  });

  test('strings over their limits are a 422 (names and reference 100, e-mail 254, phone 32); at the limit they pass', async () => {
    await invalid(createBody({ guest_first_name: 'a'.repeat(101) }), ['guest_first_name']);
    await invalid(createBody({ guest_last_name: 'a'.repeat(101) }), ['guest_last_name']);
    await invalid(createBody({ reservation_ref: 'R'.repeat(101) }), ['reservation_ref']);
    await invalid(createBody({ guest_phone: '1'.repeat(33) }), ['guest_phone']);
    const longEmail = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.com`; // 259
    await invalid(createBody({ guest_email: longEmail }), ['guest_email']);
    await invalid(createBody({ guest_first_name: '' }), ['guest_first_name']);
    await invalid(createBody({ reservation_ref: '' }), ['reservation_ref']);
    const atLimit = createBody({
      guest_first_name: 'a'.repeat(100),
      guest_last_name: 'b'.repeat(100),
      reservation_ref: 'R'.repeat(100),
      guest_phone: '1'.repeat(32),
    });
    assert.equal((await create(atLimit)).statusCode, 201);
  });

  test('reservation_data must be an object', async () => {
    for (const data of [[], ['checkin'], 'checkin=2026-12-24', 12, true, null]) {
      await invalid(createBody({ reservation_data: data }), ['reservation_data']);
    }
  });

  test('reservation_data over 16 KiB serialised is a 422; under it is accepted', async () => {
    await invalid(createBody({ reservation_data: { notes: 'x'.repeat(16 * 1024) } }), ['reservation_data']);
    const r = await create(createBody({ reservation_data: { notes: 'x'.repeat(15 * 1024) } }));
    assert.equal(r.statusCode, 201);
  });

  test('checkin and checkout must be real YYYY-MM-DD dates, checkout not before checkin', async () => {
    for (const checkin of [
      '2026-02-30',
      '2026-13-01',
      '2026-1-5',
      '24/12/2026',
      '2026-12-24T00:00:00Z',
      20261224,
      '',
    ]) {
      await invalid(createBody({ reservation_data: { checkin } }), ['reservation_data.checkin']);
    }
    await invalid(createBody({ reservation_data: { checkout: '2026-04-31' } }), ['reservation_data.checkout']);
    await invalid(createBody({ reservation_data: { checkin: '2026-12-24', checkout: '2026-12-20' } }), [
      'reservation_data.checkout',
    ]);
    // A leap day is a date.
    assert.equal((await create(createBody({ reservation_data: { checkin: '2028-02-29' } }))).statusCode, 201);
  });

  test('amount: more than two decimals, negative, or above 1,000,000 is a 422; the limits themselves pass', async () => {
    for (const amount of [10.001, 0.005, 150.999, -0.01, -5, 1_000_000.01, 5_000_000, 1e21]) {
      await invalid(createBody({ request_type: 'IMPRINT', amount }), ['amount']);
    }
    await invalid(createBody({ request_type: 'DEPOSIT', amount: 10.001 }), ['amount']);
    // Tiny fractions are more decimals too: never silently rounded to 0 cents (a DEPOSIT of 0).
    for (const amount of [1e-9, 5e-324, 10.000000001]) {
      await invalid(createBody({ request_type: 'DEPOSIT', amount }), ['amount']);
    }
    await invalid(createBody({ request_type: 'DEPOSIT', amount: 1_000_001 }), ['amount']);
    // A number that overflows to Infinity when parsed.
    const overflow = JSON.stringify(createBody({ request_type: 'DEPOSIT', amount: 1 })).replace(
      '"amount":1',
      '"amount":1e400',
    );
    await refused(422, () => raw(overflow));
    assert.equal((await create(createBody({ request_type: 'DEPOSIT', amount: 1_000_000 }))).statusCode, 201);
    assert.equal((await create(createBody({ request_type: 'DEPOSIT', amount: 0.01 }))).statusCode, 201);
  });

  test("one 422 names every field to fix: the schema's refusals and the field rules' together", async () => {
    const body: Record<string, unknown> = {
      ...createBody({
        request_type: 'IMPRINT',
        amount: 10.001,
        reservation_data: { checkin: '2026-02-30', checkout: '2026-03-01' },
      }),
      guest_email: 'not-an-email',
    };
    delete body.reservation_ref;
    await invalid(body, ['amount', 'guest_email', 'reservation_data.checkin', 'reservation_ref']);
  });

  test('a DEPOSIT with an amount of 0 or none is the spec 400, with its exact message', async () => {
    const r = await refused(400, () => create(createBody({ request_type: 'DEPOSIT', amount: 0 })));
    assert.equal(r.json().error, 'DEPOSIT requests require an amount greater than 0');
    const missing = await refused(400, () => create({ ...createBody({ request_type: 'DEPOSIT' }), amount: undefined }));
    assert.equal(missing.json().error, 'DEPOSIT requests require an amount greater than 0');
  });

  test('unknown extra fields are ignored: 201, and they are not stored', async () => {
    const r = await create(
      createBody({ reservation_ref: 'EXTRA', status: 'CAPTURED', uuid: 'x', tenant_id: 'y', foo: 1 }),
    );
    assert.equal(r.statusCode, 201, r.body);
    assert.equal(r.json().status, 'NOT_INITIATED');
    const d = (await t.call({ method: 'GET', url: `${BASE}${r.json().uuid}/` })).json();
    assert.equal(d.status, 'NOT_INITIATED');
    assert.notEqual(d.uuid, 'x');
    assert.equal(d.foo, undefined);
    const row = await t.repos.paymentRequests.find(t.tenant.tenantId, r.json().uuid);
    assert.equal(row?.tenant_id, t.tenant.tenantId);
  });

  test('text PostgreSQL cannot store (NUL, unpaired surrogates) is a 422, in fields and inside reservation_data', async () => {
    for (const field of ['guest_first_name', 'guest_last_name', 'guest_phone', 'reservation_ref']) {
      for (const bad of ['a\u0000b', '\ud800', 'x\udc00']) {
        const details = await invalid(createBody({ [field]: bad }), [field]);
        // Names and references also refuse bidirectional controls, and say so (a name: one line, no control character).
        const said =
          /^(must not contain NUL characters(,| or) unpaired surrogates|must be one line: no line breaks or other control characters, unpaired surrogates)/;
        assert.match(details[0]?.message ?? '', said);
      }
    }
    for (const data of [{ note: 'a\u0000' }, { '\u0000': 1 }, { list: ['ok', { deep: '\ud83d' }] }]) {
      await invalid(createBody({ reservation_data: data }), ['reservation_data']);
    }
    // Paired surrogates (emoji) and accents are fine, and come back as sent.
    const r = await create(createBody({ guest_last_name: 'Zoë 😀', reservation_data: { note: '🏨 vue mer' } }));
    assert.equal(r.statusCode, 201);
    const d = (await t.call({ method: 'GET', url: `${BASE}${r.json().uuid}/` })).json();
    assert.equal(d.guest_last_name, 'Zoë 😀');
    assert.deepEqual(d.reservation_data, { note: '🏨 vue mer' });
  });

  test('prototype-pollution keys are a 400 forbidden_json_key, never silently dropped', async () => {
    const base = JSON.stringify(createBody({ reservation_ref: 'PROTO' }));
    // Each spliced into the body once (a key twice in one object is refused on its own account).
    for (const body of [
      base.replace(/}$/, ',"__proto__":{"polluted":true}}'),
      base.replace(/}$/, ',"constructor":{"prototype":{"polluted":true}}}'),
      base.replace('"reservation_data":{', '"reservation_data":{"nested":{"__proto__":{"polluted":true}},'),
    ]) {
      const r = await refused(400, () => raw(body));
      assert.equal(r.json().code, 'forbidden_json_key', body);
    }
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    // A key merely named "constructor" (no prototype under it) is ordinary data.
    const fine = await raw(base.replace('"reservation_data":{', '"reservation_data":{"constructor":"Acme builders",'));
    assert.equal(fine.statusCode, 201, fine.body);
  });

  test('every response carried x-request-id and none was a 5xx', () => auditResponses(t));
});
