import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { IPN_RATE_LIMIT } from '../../src/ipn/index.ts';
import { IPN_SIGNATURE_HEADER, ipnKey, signIpn } from '../../src/providers/sandbox/ipn-signature.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

describe(`POST /ipn/<provider>/ (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    // Behind a trusted proxy, so each test can speak from its own client address.
    t = await startTestApp({ env: { TRUST_PROXY: 'true' } });
  });
  after(() => t.close());

  const ipn = (ip: string, payload = '{"event_id":"x"}', provider = 'sandbox') =>
    t.app.inject({
      method: 'POST',
      url: `/ipn/${provider}/`,
      headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
      payload,
    });

  test('an unsigned notification is refused with 401 {error}; an empty or odd body too', async () => {
    for (const body of ['{"event_id":"x"}', '', 'kr-answer=%7B%7D&kr-hash=00']) {
      const r = await ipn('10.0.0.1', body);
      assert.equal(r.statusCode, 401, body);
      assert.equal(typeof r.json().error, 'string');
    }
    const events = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM provider_events');
    assert.equal(events.rows[0]?.n, 0, 'nothing was recorded');
  });

  test('a provider payreq does not know is not there: 404; lyra and stripe (per tenant account) are, and refuse junk', async () => {
    assert.equal((await ipn('10.0.0.2', '{}', 'adyen')).statusCode, 404);
    assert.equal((await ipn('10.0.0.2', '{}', 'lyra')).statusCode, 401);
    assert.equal((await ipn('10.0.0.2', '{}', 'stripe')).statusCode, 401);
  });

  /** A notification signed as the sandbox signs them: it verifies. */
  const signed = (ip: string, fields: Record<string, unknown>) => {
    const body = JSON.stringify({ outcome: 'error', detail: 'test', created_at: new Date().toISOString(), ...fields });
    return t.app.inject({
      method: 'POST',
      url: '/ipn/sandbox/',
      headers: {
        'content-type': 'application/json',
        'x-forwarded-for': ip,
        [IPN_SIGNATURE_HEADER]: signIpn(ipnKey(t.app.payreq.secretKey), body),
      },
      payload: body,
    });
  };
  const eventCount = async () =>
    (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM provider_events')).rows[0]?.n ?? -1;

  test(`refused notifications: at most ${IPN_RATE_LIMIT} a minute per IP address, then 429 with Retry-After; other addresses go on`, async () => {
    for (let i = 0; i < IPN_RATE_LIMIT; i++) assert.equal((await ipn('10.0.0.3')).statusCode, 401, `request ${i + 1}`);
    const limited = await ipn('10.0.0.3');
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.json().code, 'rate_limited');
    assert.ok(Number(limited.headers['retry-after']) > 0);
    assert.equal((await ipn('10.0.0.4')).statusCode, 401, 'another address is not limited');
  });

  test('verified notifications are never counted nor refused: a burst of 70, and one from a flooded address', async () => {
    const { uuid } = await createRequest(t, { reservation_ref: 'IPN-BURST' });
    const before = await eventCount();
    for (let i = 0; i < IPN_RATE_LIMIT + 10; i++) {
      const r = await signed('10.0.0.5', { event_id: `burst-${i}`, order_id: uuid });
      assert.equal(r.statusCode, 200, `notification ${i + 1}: ${r.body}`);
    }
    assert.equal(await eventCount(), before + IPN_RATE_LIMIT + 10, 'each one recorded');
    // The same address then sends forgeries: they are still counted from zero, and limited.
    for (let i = 0; i < IPN_RATE_LIMIT; i++) assert.equal((await ipn('10.0.0.5')).statusCode, 401);
    assert.equal((await ipn('10.0.0.5')).statusCode, 429);
    // A genuine notification from that flooded address still goes through.
    const genuine = await signed('10.0.0.5', { event_id: 'after-flood', order_id: uuid });
    assert.equal(genuine.statusCode, 200, genuine.body);
  });

  test('a signed notification holding NUL or a lone surrogate is refused (4xx) and records nothing', async () => {
    const { uuid } = await createRequest(t, { reservation_ref: 'IPN-NUL' });
    const before = await eventCount();
    for (const fields of [
      { event_id: 'evt\u0000nul', order_id: uuid },
      { event_id: 'evt-\ud800', order_id: uuid },
      { event_id: 'evt-detail', order_id: uuid, detail: 'a\u0000b' },
      { event_id: 'evt-tx', order_id: uuid, transaction_id: '\udc00' },
    ]) {
      const r = await signed('10.0.0.6', fields);
      assert.ok(r.statusCode >= 400 && r.statusCode < 500, `${JSON.stringify(fields)}: ${r.statusCode} ${r.body}`);
      assert.equal(typeof r.json().error, 'string');
    }
    assert.equal(await eventCount(), before, 'nothing recorded');
    const d = await t.db.query<{ status: string }>('SELECT status FROM payment_requests WHERE id = $1', [uuid]);
    assert.equal(d.rows[0]?.status, 'NOT_INITIATED');
  });
});
