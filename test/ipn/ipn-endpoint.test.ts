import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { IPN_RATE_LIMIT } from '../../src/ipn/index.js';
import { ENGINE, startTestApp, type TestApp } from '../helpers/test-app.js';

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

  test('a provider payreq does not know is not there: 404; lyra (per tenant account) is, and refuses junk', async () => {
    assert.equal((await ipn('10.0.0.2', '{}', 'stripe')).statusCode, 404);
    assert.equal((await ipn('10.0.0.2', '{}', 'lyra')).statusCode, 401);
  });

  test(`at most ${IPN_RATE_LIMIT} a minute per IP address (SPEC 8): then 429 with Retry-After; other addresses go on`, async () => {
    for (let i = 0; i < IPN_RATE_LIMIT; i++) assert.equal((await ipn('10.0.0.3')).statusCode, 401, `request ${i + 1}`);
    const limited = await ipn('10.0.0.3');
    assert.equal(limited.statusCode, 429);
    assert.equal(typeof limited.json().error, 'string');
    assert.ok(Number(limited.headers['retry-after']) > 0);
    assert.equal((await ipn('10.0.0.4')).statusCode, 401, 'another address is not limited');
  });
});
