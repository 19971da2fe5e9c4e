import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { countingProvider, gate } from '../helpers/providers.ts';
import { auditResponses, createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

const BASE = '/api/payment-requests/';

describe(`payment provider unavailable (${ENGINE})`, () => {
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
  const post = (uuid: string, action: string, headers: Record<string, string> = {}) =>
    t.call({ method: 'POST', url: `${BASE}${uuid}/${action}/`, headers });
  const stored = (uuid: string) => t.repos.paymentRequests.find(t.tenant.tenantId, uuid);

  for (const action of ['capture', 'release'] as const) {
    test(`${action}: an unavailable provider is a 502 {error}; nothing changes; a later ${action} succeeds`, async () => {
      const c = await held();
      const historyBefore = (await t.repos.paymentRequests.history(c.uuid)).length;
      provider.failWith('unavailable');
      try {
        const r = await post(c.uuid, action);
        assert.equal(r.statusCode, 502);
        assert.match(String(r.headers['content-type']), /^application\/json/);
        assert.equal(typeof r.json().error, 'string');
        assert.ok(!/at .*\.ts:\d+/.test(r.body), 'no stack trace');
      } finally {
        provider.failWith(undefined);
      }
      assert.equal(provider.count(action, c.uuid), 1);
      const row = await stored(c.uuid);
      assert.equal(row?.status, 'AUTHORISED_TO_VALIDATE');
      assert.equal(row?.amount_captured, 0);
      assert.equal(row?.pending_action, null, 'the claim was given back');
      assert.equal((await t.repos.paymentRequests.history(c.uuid)).length, historyBefore);

      const retry = await post(c.uuid, action);
      assert.equal(retry.statusCode, 200, retry.body);
      assert.equal(retry.json().status, action === 'capture' ? 'CAPTURED' : 'CANCELLED');
      assert.equal(provider.count(action, c.uuid), 2);
    });
  }

  test('a technical provider error is a 502 too, and leaves the request capturable', async () => {
    const c = await held();
    provider.failWith('technical');
    try {
      assert.equal((await post(c.uuid, 'capture')).statusCode, 502);
    } finally {
      provider.failWith(undefined);
    }
    assert.equal((await stored(c.uuid))?.status, 'AUTHORISED_TO_VALIDATE');
    assert.equal((await post(c.uuid, 'capture')).statusCode, 200);
  });

  test('a provider that hangs then fails: meanwhile other actions get 409 and the row is untouched; then 502, then a capture works', async () => {
    const c = await held(150);
    const g = gate();
    provider.holdUntil(g.opened);
    provider.failWith('unavailable');
    let first: Awaited<ReturnType<typeof post>>;
    try {
      const entered = provider.entered;
      const pending = post(c.uuid, 'capture');
      while (provider.entered === entered) await new Promise((r) => setImmediate(r));
      for (const action of ['capture', 'release', 'cancel']) {
        const r = await post(c.uuid, action);
        assert.equal(r.statusCode, 409, `${action}: ${r.body}`);
        assert.equal(typeof r.json().error, 'string');
      }
      const del = await t.call({ method: 'DELETE', url: `${BASE}${c.uuid}/` });
      assert.equal(del.statusCode, 409, del.body);
      assert.equal((await stored(c.uuid))?.status, 'AUTHORISED_TO_VALIDATE');
      g.open();
      first = await pending;
    } finally {
      provider.holdUntil(undefined);
      provider.failWith(undefined);
      g.open();
    }
    assert.equal(first.statusCode, 502);
    assert.equal(typeof first.json().error, 'string');
    assert.equal(provider.count('capture', c.uuid), 1, 'the refused attempts never reached the provider');
    assert.equal(provider.count('release', c.uuid), 0);
    const row = await stored(c.uuid);
    assert.equal(row?.status, 'AUTHORISED_TO_VALIDATE');
    assert.equal(row?.pending_action, null);
    const later = await post(c.uuid, 'capture');
    assert.equal(later.statusCode, 200);
    assert.equal((await stored(c.uuid))?.amount_captured, 15000);
  });

  test('a 502 under an Idempotency-Key is not replayed: the retry with the same key runs and succeeds', async () => {
    const c = await held();
    provider.failWith('unavailable');
    try {
      assert.equal((await post(c.uuid, 'capture', { 'idempotency-key': 'cap-retry-1' })).statusCode, 502);
    } finally {
      provider.failWith(undefined);
    }
    const retry = await post(c.uuid, 'capture', { 'idempotency-key': 'cap-retry-1' });
    assert.equal(retry.statusCode, 200, retry.body);
    assert.equal(retry.headers['idempotent-replayed'], undefined);
    const replay = await post(c.uuid, 'capture', { 'idempotency-key': 'cap-retry-1' });
    assert.equal(replay.statusCode, 200);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(provider.count('capture', c.uuid), 2, 'one failed call, one successful, none for the replay');
  });

  test('a refusal by the provider is a 4xx {error} (not a 5xx), and nothing changes', async () => {
    const c = await held();
    provider.failWith('refused');
    let r: Awaited<ReturnType<typeof post>>;
    try {
      r = await post(c.uuid, 'capture');
    } finally {
      provider.failWith(undefined);
    }
    assert.ok(r.statusCode >= 400 && r.statusCode < 500, String(r.statusCode));
    assert.match(r.json().error, /refused/);
    const row = await stored(c.uuid);
    assert.equal(row?.status, 'AUTHORISED_TO_VALIDATE');
    assert.equal(row?.pending_action, null);
  });

  test('every response carried x-request-id and no 5xx other than the 502s', () => auditResponses(t, [502]));
});
