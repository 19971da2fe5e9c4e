import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { countingProvider, gate } from '../helpers/providers.ts';
import { eventually } from '../helpers/sandbox-checkout.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

describe(`a provider that answers after the timeout (${ENGINE})`, () => {
  let t: TestApp;
  const provider = countingProvider();
  const late = gate();
  before(async () => {
    t = await startTestApp({ provider: provider.provider, env: { PROVIDER_TIMEOUT_MS: '300' } });
  });
  after(async () => {
    late.open();
    await t.close();
  });

  test('capture: 504 outcome_unknown, the claim is kept, the late answer is recorded, a retry calls nobody', async () => {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount: 90 });
    await arrangeStatus(t.db, c.uuid, 'AUTHORISED_TO_VALIDATE');
    provider.holdUntil(late.opened);
    const headers = { ...t.tenant.headers, 'idempotency-key': 'pms-late-capture' };
    const r = await t.call({ method: 'POST', url: `/api/payment-requests/${c.uuid}/capture/`, headers });
    assert.equal(r.statusCode, 504, r.body);
    assert.equal(r.json().code, 'outcome_unknown');
    const row = await t.repos.paymentRequests.find(t.tenant.tenantId, c.uuid);
    assert.deepEqual([row?.status, row?.pending_action], ['AUTHORISED_TO_VALIDATE', 'capture']);
    // Another caller meanwhile: the request is busy with the capture in doubt, and says so.
    const other = await t.call({ method: 'POST', url: `/api/payment-requests/${c.uuid}/release/` });
    assert.equal(other.statusCode, 409, other.body);
    assert.equal(other.json().in_doubt?.action, 'capture');

    provider.holdUntil(undefined);
    late.open();
    await eventually(async () => {
      const now = await t.repos.paymentRequests.find(t.tenant.tenantId, c.uuid);
      return now?.status === 'CAPTURED' ? now : undefined;
    }, 'the late answer recorded');
    const retry = await t.call({ method: 'POST', url: `/api/payment-requests/${c.uuid}/capture/`, headers });
    assert.equal(retry.statusCode, 200, retry.body);
    assert.equal(retry.json().status, 'CAPTURED');
    assert.equal(provider.count('capture', c.uuid), 1);
    assert.equal(provider.count('release', c.uuid), 0);
  });
});
