import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { countingProvider } from '../helpers/providers.ts';
import {
  auditResponses,
  createRequest,
  ENGINE,
  startTestApp,
  type TenantWithKey,
  type TestApp,
} from '../helpers/test-app.ts';

const BASE = '/api/payment-requests/';

describe(`Tenant isolation (${ENGINE})`, () => {
  let t: TestApp;
  let other: TenantWithKey;
  const provider = countingProvider();
  let theirs: { uuid: string; reference: string };

  before(async () => {
    t = await startTestApp({ provider: provider.provider });
    other = await t.newTenant('Hôtel voisin');
    theirs = await createRequest(t, { reservation_ref: 'SHARED-REF' }, other);
    // A status every action would accept, so only the tenant check can refuse.
    await arrangeStatus(t.db, theirs.uuid, 'AUTHORISED_TO_VALIDATE');
    await createRequest(t, { reservation_ref: 'SHARED-REF' });
  });
  after(() => t.close());

  const notFound = (r: { statusCode: number; json(): { error: string } }, uuid: string) => {
    assert.equal(r.statusCode, 404);
    assert.equal(r.json().error, `Payment request ${uuid} not found.`);
  };

  test("another tenant's request is 404 on detail, with the exact message", async () => {
    notFound(await t.call({ method: 'GET', url: `${BASE}${theirs.uuid}/` }), theirs.uuid);
  });

  for (const action of ['capture', 'release'] as const) {
    test(`another tenant's request is 404 on ${action}, and is left as it was`, async () => {
      notFound(await t.call({ method: 'POST', url: `${BASE}${theirs.uuid}/${action}/` }), theirs.uuid);
      const row = await t.repos.paymentRequests.find(other.tenantId, theirs.uuid);
      assert.equal(row?.status, 'AUTHORISED_TO_VALIDATE');
      assert.equal(row?.pending_action, null);
    });
  }

  test("another tenant's request is 404 on cancel, and is left as it was", async () => {
    // Cancellable for its owner: only the tenant check refuses.
    const open = await createRequest(t, { reservation_ref: 'THEIRS-OPEN' }, other);
    notFound(await t.call({ method: 'POST', url: `${BASE}${open.uuid}/cancel/` }), open.uuid);
    assert.equal((await t.repos.paymentRequests.find(other.tenantId, open.uuid))?.status, 'NOT_INITIATED');
    assert.equal((await t.repos.paymentRequests.history(open.uuid)).length, 1);
  });

  test("another tenant's request is 404 on delete, and still exists", async () => {
    // Deletable status for its owner: only the tenant check refuses.
    const victim = await createRequest(t, { reservation_ref: 'THEIRS-2' }, other);
    notFound(await t.call({ method: 'DELETE', url: `${BASE}${victim.uuid}/` }), victim.uuid);
    assert.ok(await t.repos.paymentRequests.find(other.tenantId, victim.uuid));
    assert.equal((await t.call({ method: 'GET', url: `${BASE}${victim.uuid}/`, tenant: other })).statusCode, 200);
  });

  test('the provider was never asked on behalf of the wrong tenant', () => {
    assert.equal(provider.calls.length, 0);
  });

  test("another tenant's requests are absent from the list, with and without filters", async () => {
    for (const q of ['', '?reservation_ref=SHARED-REF', '?status=AUTHORISED_TO_VALIDATE', '?request_type=IMPRINT']) {
      const r = await t.call({ method: 'GET', url: `${BASE}${q}` });
      assert.equal(r.statusCode, 200);
      const uuids = (r.json() as { uuid: string }[]).map((x) => x.uuid);
      assert.ok(!uuids.includes(theirs.uuid), `listed with ${q || 'no filter'}`);
    }
    const mine = (await t.call({ method: 'GET', url: BASE })).json() as { reservation_ref: string }[];
    assert.equal(mine.length, 1);
    assert.equal(mine[0]?.reservation_ref, 'SHARED-REF');
  });

  test("another tenant's requests are absent from statuses, even for a shared reservation_ref", async () => {
    const r = await t.call({ method: 'GET', url: `${BASE}statuses/?refs=SHARED-REF,THEIRS-2` });
    assert.equal(r.statusCode, 200);
    const rows = r.json() as { uuid: string }[];
    assert.equal(rows.length, 1);
    assert.notEqual(rows[0]?.uuid, theirs.uuid);
    // And the owner does see theirs.
    const own = (await t.call({ method: 'GET', url: `${BASE}statuses/?refs=SHARED-REF`, tenant: other })).json() as {
      uuid: string;
    }[];
    assert.deepEqual(
      own.map((x) => x.uuid),
      [theirs.uuid],
    );
  });

  test('every response carried x-request-id and none was a 5xx', () => auditResponses(t));
});
