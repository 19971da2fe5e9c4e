import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { arrangeStatus } from '../helpers/fixtures.js';
import { countingProvider, gate } from '../helpers/providers.js';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.js';

describe(`a provider that never answers (${ENGINE})`, () => {
  let t: TestApp;
  const provider = countingProvider();
  const never = gate();
  before(async () => {
    t = await startTestApp({ provider: provider.provider, env: { PROVIDER_TIMEOUT_MS: '300' } });
  });
  after(async () => {
    never.open();
    await t.close();
  });

  test('capture answers 502 after PROVIDER_TIMEOUT_MS, the status is unchanged and the claim given back', async () => {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount: 90 });
    await arrangeStatus(t.db, c.uuid, 'AUTHORISED_TO_VALIDATE');
    provider.holdUntil(never.opened);
    const r = await t.call({ method: 'POST', url: `/api/payment-requests/${c.uuid}/capture/` });
    assert.equal(r.statusCode, 502);
    assert.equal(typeof r.json().error, 'string');
    const row = await t.repos.paymentRequests.find(t.tenant.tenantId, c.uuid);
    assert.equal(row?.status, 'AUTHORISED_TO_VALIDATE');
    assert.equal(row?.pending_action, null);
    provider.holdUntil(undefined);
    const retry = await t.call({ method: 'POST', url: `/api/payment-requests/${c.uuid}/capture/` });
    assert.equal(retry.statusCode, 200);
    assert.equal(retry.json().status, 'CAPTURED');
  });
});
