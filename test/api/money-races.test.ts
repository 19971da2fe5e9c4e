import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { countingProvider, gate } from '../helpers/providers.ts';
import { auditResponses, createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

const BASE = '/api/payment-requests/';

/** A race has exactly one winner, and the provider is asked once. */
describe(`capture, release and cancel races (${ENGINE})`, () => {
  let t: TestApp;
  const provider = countingProvider();
  before(async () => {
    t = await startTestApp({ provider: provider.provider });
  });
  after(() => t.close());

  async function held(amount = 150) {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount });
    await arrangeStatus(t.db, c.uuid, 'AUTHORISED_TO_VALIDATE');
    return c;
  }
  const post = (uuid: string, action: string) => t.call({ method: 'POST', url: `${BASE}${uuid}/${action}/` });
  const detail = async (uuid: string) => (await t.call({ method: 'GET', url: `${BASE}${uuid}/` })).json();

  test('20 concurrent captures of one request: one 200, the others 400 or 409, the provider asked once', async () => {
    for (let round = 0; round < 5; round++) {
      const c = await held(150);
      const rs = await Promise.all(Array.from({ length: 20 }, () => post(c.uuid, 'capture')));
      const codes = rs.map((r) => r.statusCode);
      assert.equal(codes.filter((s) => s === 200).length, 1, `round ${round}: ${codes.join(',')}`);
      assert.ok(
        codes.every((s) => s === 200 || s === 400 || s === 409),
        codes.join(','),
      );
      for (const r of rs) if (r.statusCode !== 200) assert.equal(typeof r.json().error, 'string');
      assert.equal(provider.count('capture', c.uuid), 1, `round ${round}`);
      const d = await detail(c.uuid);
      assert.equal(d.status, 'CAPTURED');
      assert.equal(d.amount_captured, 150);
      const h = await t.repos.paymentRequests.history(c.uuid);
      assert.equal(h.filter((x) => x.to_status === 'CAPTURED').length, 1);
    }
  });

  test('while a capture waits on the provider, 19 more are refused with 409 and never reach it', async () => {
    const c = await held(150);
    const g = gate();
    provider.holdUntil(g.opened);
    try {
      const entered = provider.entered;
      const first = post(c.uuid, 'capture');
      // Wait until the first capture is inside the provider (no sleeping: poll the counter).
      while (provider.entered === entered) await new Promise((r) => setImmediate(r));
      const others = await Promise.all(Array.from({ length: 19 }, () => post(c.uuid, 'capture')));
      for (const r of others) {
        assert.equal(r.statusCode, 409, r.body);
        assert.match(r.json().error, /in progress/);
      }
      // The request shows its status unchanged while the provider is being asked.
      assert.equal((await detail(c.uuid)).status, 'AUTHORISED_TO_VALIDATE');
      g.open();
      assert.equal((await first).statusCode, 200);
    } finally {
      provider.holdUntil(undefined);
      g.open();
    }
    assert.equal(provider.count('capture', c.uuid), 1);
    assert.equal((await detail(c.uuid)).status, 'CAPTURED');
  });

  test('capture vs release vs cancel at once: exactly one winner, the state matches it, one provider call', async () => {
    for (let round = 0; round < 8; round++) {
      const c = await held(120);
      const actions = ['capture', 'release', 'cancel', 'capture', 'release', 'cancel', 'capture', 'release', 'cancel'];
      // Vary who starts first.
      const order = actions.map((_a, i) => actions[(i + round) % actions.length] as string);
      const rs = await Promise.all(order.map((a) => post(c.uuid, a)));
      const winners = rs.map((r, i) => [order[i], r.statusCode] as const).filter(([, s]) => s === 200);
      assert.equal(winners.length, 1, `round ${round}: ${rs.map((r, i) => `${order[i]}=${r.statusCode}`).join(' ')}`);
      for (const r of rs) assert.ok([200, 400, 409].includes(r.statusCode), r.body);
      const [winner] = winners[0] as readonly [string, number];
      assert.notEqual(winner, 'cancel', 'a hold cannot be cancelled');
      const d = await detail(c.uuid);
      const calls = provider.count('capture', c.uuid) + provider.count('release', c.uuid);
      assert.equal(calls, 1, `round ${round}: provider asked ${calls} times`);
      if (winner === 'capture') {
        assert.equal(d.status, 'CAPTURED');
        assert.equal(d.amount_captured, 120);
        assert.equal(provider.count('capture', c.uuid), 1);
      } else {
        assert.equal(d.status, 'CANCELLED');
        assert.equal(d.amount_captured, 0);
        assert.equal(provider.count('release', c.uuid), 1);
      }
      const h = await t.repos.paymentRequests.history(c.uuid);
      assert.equal(h.filter((x) => x.from_status === 'AUTHORISED_TO_VALIDATE').length, 1);
    }
  });

  test('cancel vs delete of an open request: a consistent outcome, never a 5xx', async () => {
    for (let round = 0; round < 6; round++) {
      const c = await createRequest(t);
      const calls = round % 2 === 0 ? ['cancel', 'delete'] : ['delete', 'cancel'];
      const rs = await Promise.all(
        calls.map((a) =>
          a === 'delete' ? t.call({ method: 'DELETE', url: `${BASE}${c.uuid}/` }) : post(c.uuid, 'cancel'),
        ),
      );
      const byAction = Object.fromEntries(rs.map((r, i) => [calls[i], r]));
      const cancel = byAction.cancel as (typeof rs)[number];
      const del = byAction.delete as (typeof rs)[number];
      // Delete is allowed from CANCELLED too, so both may succeed one after the other; what must
      // not happen is a cancel reporting success on a row that a delete had already removed.
      const row = await t.repos.paymentRequests.find(t.tenant.tenantId, c.uuid);
      if (del.statusCode === 200) assert.equal(row, undefined);
      if (cancel.statusCode === 404) assert.equal(del.statusCode, 200);
      assert.ok([200, 404].includes(cancel.statusCode), cancel.body);
      assert.ok([200, 404].includes(del.statusCode), del.body);
    }
  });

  test('every response carried x-request-id and none was a 5xx', () => auditResponses(t));
});
