import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { ControlClient, createUser } from './control-client.ts';

/**
 * A ledger row holds the currency a provider reported, as it was sent. Earlier versions stored
 * a signed notification in "EURO" as an incident, and from then on the request's page and the
 * Books page failed with Intl's RangeError. Whatever a stored row holds, the pages render it:
 * an amount in a code Intl cannot format shows that code.
 */
describe(`pages render a stored row whatever its currency (${ENGINE})`, () => {
  let t: TestApp;
  let c: ControlClient;
  let id = '';

  before(async () => {
    t = await startTestApp();
    const created = await createRequest(t, { request_type: 'DEPOSIT', amount: 12.5 });
    id = created.uuid;
    await arrangeStatus(t.db, id, 'PENDING');
    await t.db.query(
      `INSERT INTO money_ledger (payment_request_id, tenant_id, kind, amount, currency, provider, provider_transaction_id,
         idempotency_key, state, source, actor, incident)
       SELECT id, tenant_id, 'payment', 1250, 'EURO', 'sandbox', 'txn_euro', 'event:sandbox:evt_euro', 'succeeded',
              'ipn', 'sandbox', 'currency EURO differs from the request''s EUR'
         FROM payment_requests WHERE id = $1`,
      [id],
    );
    await createUser(t, 'manager-currency', t.tenant.tenantId);
    c = await new ControlClient(t).signedIn('manager-currency');
  });
  after(() => t.close());

  for (const [page, path] of [
    ['the request', () => `/control/requests/${id}`],
    ['Books', () => '/control/books'],
  ] as const) {
    test(`${page} page: 200, the amount with its code`, async () => {
      const r = await c.get(path());
      assert.equal(r.statusCode, 200, r.body.slice(0, 500));
      assert.match(r.body, /12\.50 EURO/);
    });
  }
});
