import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.js';
import { checkoutForm, detail, submitCard } from '../helpers/sandbox-checkout.js';
import { createRequest, ENGINE } from '../helpers/test-app.js';

const ACCEPTED = '4242424242424242';
const REFUSED = '4000000000000002';
const TECHNICAL = '4000000000000119';

describe(`sandbox checkout, end to end over HTTP (${ENGINE})`, () => {
  let t: ListeningApp;
  before(async () => {
    t = await startListeningApp();
  });
  after(async () => {
    await t.close();
  });

  test('the card form posts to the sandbox, with every hidden field signed', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 80.5 });
    const form = await checkoutForm(t, c.uuid);
    assert.equal(form.kind, 'card-form');
    assert.equal(form.action, `${t.baseUrl}/sandbox/pay`);
    assert.deepEqual(Object.keys(form.hiddenFields).sort(), [
      'amount',
      'currency',
      'language',
      'notify_url',
      'order_id',
      'reference',
      'request_type',
      'return_url',
      'signature',
    ]);
    assert.equal(form.hiddenFields.amount, '8050');
    assert.equal(form.hiddenFields.order_id, c.uuid);
    assert.match(form.hiddenFields.signature ?? '', /^[0-9a-f]{64}$/);
  });

  test('IMPRINT with 4242…: AUTHORISED with the masked card and expiry; the token is stored sealed', async () => {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount: 200 });
    const form = await checkoutForm(t, c.uuid);
    const r = await submitCard(form, { number: ACCEPTED, month: '7', year: '2031' });
    assert.equal(r.status, 303, r.body);
    assert.equal(r.location, `${t.baseUrl}/payment/${c.uuid}/result/`);
    const d = await detail(t, c.uuid);
    assert.equal(d.status, 'AUTHORISED');
    assert.equal(d.masked_pan, '424242XXXXXX4242');
    assert.equal(d.card_expiry_month, 7);
    assert.equal(d.card_expiry_year, 2031);
    assert.equal(d.amount_captured, 0);

    const row = (
      await t.db.query<{ card_token: string; provider: string; provider_transaction_id: string }>(
        'SELECT card_token, provider, provider_transaction_id FROM payment_requests WHERE id = $1',
        [c.uuid],
      )
    ).rows[0];
    const vault = await t.db.query<{ token: string; card_number: string }>(
      'SELECT token, card_number FROM sandbox_tokens',
    );
    const stored = vault.rows.find((v) => t.app.payreq.cardTokens.open(row?.card_token ?? '', c.uuid) === v.token);
    assert.ok(stored, 'the sealed token opens to a token of the sandbox vault');
    assert.equal(stored.card_number, ACCEPTED);
    assert.ok(!row?.card_token.includes(stored.token), 'the plain token is not in payment_requests');
    assert.equal(row?.provider, 'sandbox');
    const txn = await t.db.query<{ kind: string; status: string; amount: number }>(
      'SELECT kind, status, amount FROM sandbox_transactions WHERE id = $1',
      [row?.provider_transaction_id],
    );
    assert.deepEqual(txn.rows, [{ kind: 'verification', status: 'accepted', amount: 0 }]);
  });

  test('DEPOSIT with 4242…: CAPTURED for the amount, and a confirmation e-mail is due', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 123.45 });
    const r = await submitCard(await checkoutForm(t, c.uuid), { number: '4242 4242 4242 4242' });
    assert.equal(r.status, 303, r.body);
    const d = await detail(t, c.uuid);
    assert.equal(d.status, 'CAPTURED');
    assert.equal(d.amount_captured, 123.45);
    assert.equal(d.order_cycle, 'CLOSED');
    assert.equal(d.masked_pan, '424242XXXXXX4242', 'the hotel sees which card paid');
    assert.equal(typeof d.card_expiry_month, 'number');
    const mail = await t.db.query('SELECT kind FROM email_outbox WHERE payment_request_id = $1', [c.uuid]);
    assert.deepEqual(mail.rows, [{ kind: 'deposit_confirmation' }]);
    const txn = await t.db.query(
      'SELECT kind, status, amount, captured_amount FROM sandbox_transactions WHERE order_id = $1',
      [c.uuid],
    );
    assert.deepEqual(txn.rows, [{ kind: 'payment', status: 'captured', amount: 12345, captured_amount: 12345 }]);
  });

  test('another valid Luhn number is accepted too', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 10 });
    const r = await submitCard(await checkoutForm(t, c.uuid), { number: '5555555555554444' });
    assert.equal(r.status, 303);
    assert.equal((await detail(t, c.uuid)).status, 'CAPTURED');
  });

  test('a second submission of a paid order charges nothing more', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 40 });
    const form = await checkoutForm(t, c.uuid);
    assert.equal((await submitCard(form, { number: ACCEPTED })).status, 303);
    const again = await submitCard(form, { number: ACCEPTED });
    assert.equal(again.status, 303);
    const txn = await t.db.query('SELECT id FROM sandbox_transactions WHERE order_id = $1', [c.uuid]);
    assert.equal(txn.rows.length, 1);
    const sent = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM sandbox_notifications WHERE body LIKE '%' || $1 || '%'",
      [c.uuid],
    );
    assert.equal(sent.rows[0]?.n, 1);
  });

  for (const type of ['IMPRINT', 'DEPOSIT'] as const) {
    test(`${type} with 4000…0002: REFUSED, nothing stored`, async () => {
      const c = await createRequest(t, { request_type: type, amount: 60 });
      const r = await submitCard(await checkoutForm(t, c.uuid), { number: REFUSED });
      assert.equal(r.status, 303);
      const d = await detail(t, c.uuid);
      assert.equal(d.status, 'REFUSED');
      assert.equal(d.amount_captured, 0);
      assert.equal(d.masked_pan, '');
      const txn = await t.db.query('SELECT status, token FROM sandbox_transactions WHERE order_id = $1', [c.uuid]);
      assert.deepEqual(txn.rows, [{ status: 'refused', token: null }]);
    });
  }

  test('4000…0119: ERROR, then a retry with 4242… succeeds', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 75 });
    const form = await checkoutForm(t, c.uuid);
    assert.equal((await submitCard(form, { number: TECHNICAL })).status, 303);
    assert.equal((await detail(t, c.uuid)).status, 'ERROR');
    assert.equal((await submitCard(form, { number: ACCEPTED })).status, 303);
    const d = await detail(t, c.uuid);
    assert.equal(d.status, 'CAPTURED');
    assert.equal(d.amount_captured, 75);
  });

  const mistakes: [string, Partial<Record<string, string>>, RegExp][] = [
    ['a number failing Luhn', { card_number: '4242424242424241' }, /card number is not valid/],
    ['an expired card', { exp_month: '1', exp_year: '2020' }, /expired/],
    ['last month', {}, /expired/],
    ['a month 13', { exp_month: '13' }, /month/],
    ['a CVV of 2 digits', { cvv: '12' }, /CVV/],
    ['a CVV with letters', { cvv: '12a' }, /CVV/],
    ['no card number', { card_number: '' }, /card number/],
  ];
  for (const [what, override, message] of mistakes) {
    test(`${what}: the card page again with 422 and the error; nothing changes`, async () => {
      const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 50 });
      const form = await checkoutForm(t, c.uuid);
      const now = new Date();
      const lastMonth =
        what === 'last month'
          ? now.getUTCMonth() === 0
            ? { exp_month: '12', exp_year: String(now.getUTCFullYear() - 1) }
            : { exp_month: String(now.getUTCMonth()), exp_year: String(now.getUTCFullYear()) }
          : {};
      const r = await submitCard(form, { number: ACCEPTED }, { ...override, ...lastMonth } as Record<string, string>);
      assert.equal(r.status, 422);
      assert.match(r.contentType ?? '', /text\/html/);
      assert.match(r.body, /TEST MODE/);
      assert.match(r.body, message);
      assert.match(r.body, /role="alert"/);
      assert.match(r.body, /<label for="card_number">/);
      assert.match(r.body, new RegExp(`name="signature" value="${form.hiddenFields.signature}"`));
      assert.match(r.body, new RegExp(`name="order_id" value="${c.uuid}"`));
      assert.match(r.body, /4000000000000002/, 'the test cards are listed');
      assert.doesNotMatch(r.body, /<script/i);
      assert.equal((await detail(t, c.uuid)).status, 'NOT_INITIATED');
      const txn = await t.db.query('SELECT id FROM sandbox_transactions WHERE order_id = $1', [c.uuid]);
      assert.equal(txn.rows.length, 0);
    });
  }

  test('a corrected card on the re-rendered page goes through', async () => {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount: 90 });
    const form = await checkoutForm(t, c.uuid);
    assert.equal((await submitCard(form, { number: '4242424242424241' })).status, 422);
    assert.equal((await submitCard(form, { number: ACCEPTED })).status, 303);
    assert.equal((await detail(t, c.uuid)).status, 'AUTHORISED');
  });

  const tampering: [string, (f: Record<string, string>) => Record<string, string>][] = [
    ['the amount', (f) => ({ ...f, amount: '1' })],
    ['the request type', (f) => ({ ...f, request_type: 'IMPRINT' })],
    ['the notify_url', (f) => ({ ...f, notify_url: 'http://127.0.0.1:9/ipn/sandbox/' })],
    ['the return_url', (f) => ({ ...f, return_url: 'https://evil.example/' })],
    ['the order id', (f) => ({ ...f, order_id: '00000000-0000-4000-8000-000000000000' })],
    ['the signature', (f) => ({ ...f, signature: '0'.repeat(64) })],
    ['a missing signature', ({ signature: _s, ...f }) => f],
    ['a missing field', ({ currency: _c, ...f }) => f],
  ];
  for (const [what, tamper] of tampering) {
    test(`a form with ${what} altered: 400 page, nothing charged, nothing changes`, async () => {
      const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 300 });
      const form = await checkoutForm(t, c.uuid);
      const altered = { ...form, hiddenFields: tamper({ ...form.hiddenFields }) };
      const r = await submitCard(altered, { number: ACCEPTED });
      assert.equal(r.status, 400);
      assert.match(r.contentType ?? '', /text\/html/);
      assert.match(r.body, /TEST MODE/);
      assert.match(r.body, /altered/);
      assert.equal((await detail(t, c.uuid)).status, 'NOT_INITIATED');
      const txn = await t.db.query('SELECT id FROM sandbox_transactions WHERE order_id = $1', [c.uuid]);
      assert.equal(txn.rows.length, 0);
    });
  }

  test('a post without a form body, or with JSON: the 400 page', async () => {
    for (const init of [
      { method: 'POST' },
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"amount":"1"}' },
    ]) {
      const r = await fetch(`${t.baseUrl}/sandbox/pay`, init);
      assert.equal(r.status, 400);
      assert.match(await r.text(), /TEST MODE/);
    }
  });

  test('a form field given twice keeps the first (signed) value', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 20 });
    const form = await checkoutForm(t, c.uuid);
    const body = `${new URLSearchParams({
      ...form.hiddenFields,
      card_number: ACCEPTED,
      exp_month: '12',
      exp_year: String(new Date().getUTCFullYear() + 2),
      cvv: '123',
    }).toString()}&amount=1`;
    const r = await fetch(form.action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
      redirect: 'manual',
    });
    assert.equal(r.status, 303);
    assert.equal((await detail(t, c.uuid)).amount_captured, 20);
  });

  test('sandbox pages carry security headers and are never cached', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 20 });
    const r = await fetch(`${t.baseUrl}/sandbox/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...(await checkoutForm(t, c.uuid)).hiddenFields, card_number: '1' }).toString(),
    });
    assert.equal(r.status, 422);
    assert.equal(r.headers.get('cache-control'), 'no-store');
    assert.match(r.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
  });
});
