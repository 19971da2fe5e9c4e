import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { checkoutForm, detail, submitCard } from '../helpers/sandbox-checkout.ts';
import { createRequest, ENGINE } from '../helpers/test-app.ts';

const ACCEPTED = '4242424242424242';
const PARALLEL = 20;

/**
 * Guests who double-click, press Back or open the link twice post at once. On PostgreSQL the
 * posts really run in parallel transactions; on PGlite they queue on its single connection.
 * Either way the database's unique guards must leave exactly one charge.
 */
describe(`sandbox checkout attempts under parallel posts (${ENGINE})`, () => {
  let t: ListeningApp;
  before(async () => {
    t = await startListeningApp();
  });
  after(async () => {
    await t.close();
  });

  async function atTheSandbox(orderId: string) {
    const r = await t.db.query<{ kind: string; status: string; captured_amount: number }>(
      'SELECT kind, status, captured_amount FROM sandbox_transactions WHERE order_id = $1',
      [orderId],
    );
    const sent = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM sandbox_notifications WHERE body LIKE '%' || $1 || '%'",
      [orderId],
    );
    return { transactions: r.rows, notifications: sent.rows[0]?.n };
  }

  test(`${PARALLEL} parallel posts of one signed DEPOSIT form: exactly one payment`, async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 120 });
    const form = await checkoutForm(t, c.uuid);
    const answers = await Promise.all(Array.from({ length: PARALLEL }, () => submitCard(form, { number: ACCEPTED })));
    for (const a of answers) {
      assert.equal(a.status, 303, a.body);
      assert.equal(a.location, `${t.baseUrl}/payment/${c.uuid}/result/`);
    }
    assert.deepEqual(await atTheSandbox(c.uuid), {
      transactions: [{ kind: 'payment', status: 'captured', captured_amount: 12000 }],
      notifications: 1,
    });
    const d = await detail(t, c.uuid);
    assert.equal(d.status, 'CAPTURED');
    assert.equal(d.amount_captured, 120);
  });

  test(`${PARALLEL} parallel posts of ${PARALLEL} different forms for one order: exactly one payment`, async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 60 });
    const forms = await Promise.all(Array.from({ length: PARALLEL }, () => checkoutForm(t, c.uuid)));
    assert.equal(new Set(forms.map((f) => f.hiddenFields.attempt_id)).size, PARALLEL);
    const answers = await Promise.all(forms.map((f) => submitCard(f, { number: ACCEPTED })));
    assert.ok(
      answers.every((a) => a.status === 303),
      answers.map((a) => a.status).join(),
    );
    assert.deepEqual(await atTheSandbox(c.uuid), {
      transactions: [{ kind: 'payment', status: 'captured', captured_amount: 6000 }],
      notifications: 1,
    });
  });

  test(`${PARALLEL} parallel posts of one IMPRINT form: one card registered, one token in the vault`, async () => {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount: 90 });
    const form = await checkoutForm(t, c.uuid);
    const before = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM sandbox_tokens');
    await Promise.all(Array.from({ length: PARALLEL }, () => submitCard(form, { number: ACCEPTED })));
    assert.deepEqual(await atTheSandbox(c.uuid), {
      transactions: [{ kind: 'verification', status: 'accepted', captured_amount: 0 }],
      notifications: 1,
    });
    const after = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM sandbox_tokens');
    assert.equal((after.rows[0]?.n ?? 0) - (before.rows[0]?.n ?? 0), 1);
    assert.equal((await detail(t, c.uuid)).status, 'AUTHORISED');
  });

  test('refused attempts do not block a new one; each refused form stays used', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 15 });
    const refusedForms = await Promise.all([1, 2, 3].map(() => checkoutForm(t, c.uuid)));
    await Promise.all(refusedForms.map((f) => submitCard(f, { number: '4000000000000002' })));
    // The same three forms again, racing a new one with a good card: only the new one charges.
    const fresh = await checkoutForm(t, c.uuid);
    await Promise.all([
      ...refusedForms.map((f) => submitCard(f, { number: ACCEPTED })),
      submitCard(fresh, { number: ACCEPTED }),
    ]);
    // The sandbox, like a real provider, takes the fresh attempt; payreq, whose request is
    // REFUSED, gives that money back (a refund of its own), which is not the sandbox's doing.
    const payments = (await atTheSandbox(c.uuid)).transactions.filter((x) => x.kind === 'payment');
    assert.deepEqual(payments.map((x) => x.captured_amount).sort(), [0, 0, 0, 1500], 'one payment took the money');
  });
});
