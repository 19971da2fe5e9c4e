import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { checkoutForm, detail, resigned, submitCard } from '../helpers/sandbox-checkout.ts';
import { createRequest, ENGINE } from '../helpers/test-app.ts';

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
      'attempt_id',
      'currency',
      'expires_at',
      'language',
      'merchant_name',
      'notify_url',
      'order_id',
      'reference',
      'request_type',
      'return_url',
      'signature',
    ]);
    assert.equal(form.hiddenFields.amount, '8050');
    assert.equal(form.hiddenFields.order_id, c.uuid);
    assert.equal(form.hiddenFields.merchant_name, 'Hôtel des Tests');
    assert.match(form.hiddenFields.signature ?? '', /^[0-9a-f]{64}$/);
  });

  test('each form is its own attempt, open for 30 minutes', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 10 });
    const before = Date.now();
    const a = await checkoutForm(t, c.uuid);
    const b = await checkoutForm(t, c.uuid);
    const after = Date.now();
    assert.match(a.hiddenFields.attempt_id ?? '', /^att_[0-9a-f-]{36}$/);
    assert.notEqual(a.hiddenFields.attempt_id, b.hiddenFields.attempt_id, 'a new form is a new attempt');
    const expires = Date.parse(a.hiddenFields.expires_at ?? '');
    assert.ok(expires >= before + 30 * 60_000 && expires <= after + 30 * 60_000, a.hiddenFields.expires_at);
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

  async function sandboxRows(orderId: string) {
    const txn = await t.db.query<{ kind: string; status: string }>(
      'SELECT kind, status FROM sandbox_transactions WHERE order_id = $1 ORDER BY created_at',
      [orderId],
    );
    const sent = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM sandbox_notifications WHERE body LIKE '%' || $1 || '%'",
      [orderId],
    );
    return { transactions: txn.rows, notifications: sent.rows[0]?.n };
  }

  test('a paid order: the same form again, or a new one, charges nothing more and notifies nothing', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 40 });
    const form = await checkoutForm(t, c.uuid);
    assert.equal((await submitCard(form, { number: ACCEPTED })).status, 303);
    for (const again of [form, await checkoutForm(t, c.uuid)]) {
      const r = await submitCard(again, { number: '5555555555554444' });
      assert.equal(r.status, 303, 'sent back to the result page');
      assert.equal(r.location, `${t.baseUrl}/payment/${c.uuid}/result/`);
    }
    assert.deepEqual(await sandboxRows(c.uuid), {
      transactions: [{ kind: 'payment', status: 'captured' }],
      notifications: 1,
    });
    assert.equal((await detail(t, c.uuid)).amount_captured, 40);
  });

  test('a registered card: a card on a new form registers at the sandbox, as at a provider; payreq keeps the first and voids it', async () => {
    // A registration moves no money, so the sandbox takes another on the same order, as a real
    // provider does (a guest replacing a card the bank refused a hold on: docs/lifecycle.md).
    // payreq's request already has its card: the second is an incident, given back (voided).
    const c = await createRequest(t, { request_type: 'IMPRINT', amount: 40 });
    assert.equal((await submitCard(await checkoutForm(t, c.uuid), { number: ACCEPTED })).status, 303);
    assert.equal((await submitCard(await checkoutForm(t, c.uuid), { number: '5555555555554444' })).status, 303);
    assert.deepEqual(await sandboxRows(c.uuid), {
      transactions: [
        { kind: 'verification', status: 'accepted' },
        { kind: 'verification', status: 'cancelled' },
      ],
      notifications: 2,
    });
    const d = await detail(t, c.uuid);
    assert.equal(d.status, 'AUTHORISED');
    assert.equal(d.masked_pan, '424242XXXXXX4242', 'the first card stays');
  });

  test('back after a refusal: the same form with a good card is refused, nothing charged', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 45 });
    const form = await checkoutForm(t, c.uuid);
    assert.equal((await submitCard(form, { number: REFUSED })).status, 303);
    assert.equal((await detail(t, c.uuid)).status, 'REFUSED');
    const again = await submitCard(form, { number: ACCEPTED });
    assert.equal(again.status, 303);
    assert.equal(again.location, `${t.baseUrl}/payment/${c.uuid}/result/`);
    assert.deepEqual(await sandboxRows(c.uuid), {
      transactions: [{ kind: 'payment', status: 'refused' }],
      notifications: 1,
    });
    assert.equal((await detail(t, c.uuid)).status, 'REFUSED');
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
      // The sandbox's bank says why (its test card's reason), and the request keeps it.
      assert.equal(d.decline_reason, 'do_not_honour');
      assert.equal(d.decline_code, 'do_not_honour');
    });
  }

  test('4000…0119: ERROR; the same form again is refused, a new one with 4242… succeeds', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 75 });
    const form = await checkoutForm(t, c.uuid);
    assert.equal((await submitCard(form, { number: TECHNICAL })).status, 303);
    const failed = await detail(t, c.uuid);
    assert.equal(failed.status, 'ERROR');
    assert.equal(failed.decline_reason, null, 'a technical error is no refusal: no bank reason');
    assert.equal((await submitCard(form, { number: ACCEPTED })).status, 303);
    assert.equal((await detail(t, c.uuid)).status, 'ERROR', 'a used attempt charges nothing');
    assert.equal((await sandboxRows(c.uuid)).transactions.length, 1);
    assert.equal((await submitCard(await checkoutForm(t, c.uuid), { number: ACCEPTED })).status, 303);
    const d = await detail(t, c.uuid);
    assert.equal(d.status, 'CAPTURED');
    assert.equal(d.amount_captured, 75);
  });

  /** The input named `name` in a page, as one tag. */
  function inputTag(body: string, name: string): string {
    const tag = new RegExp(`<input id="${name}"[^>]*>`).exec(body)?.[0];
    assert.ok(tag, `the page has an input ${name}`);
    return tag;
  }

  const mistakes: [string, Record<string, string>, RegExp, string[]][] = [
    ['a number failing Luhn', { card_number: '4242424242424241' }, /card number is not valid/, ['card_number']],
    ['an expired card', { exp_month: '1', exp_year: '2020' }, /expired/, ['exp_month', 'exp_year']],
    ['last month', {}, /expired/, ['exp_month', 'exp_year']],
    ['a month 13', { exp_month: '13' }, /month/, ['exp_month']],
    ['a year of 3 digits', { exp_year: '203' }, /year/, ['exp_year']],
    ['a CVV of 2 digits', { cvv: '12' }, /CVV/, ['cvv']],
    ['a CVV with letters', { cvv: '12a' }, /CVV/, ['cvv']],
    ['no card number', { card_number: '' }, /card number/, ['card_number']],
  ];
  for (const [what, override, message, inputs] of mistakes) {
    test(`${what}: the card page again with 422, the error beside ${inputs.join(' and ')}; nothing changes`, async () => {
      const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 50, language: 'en' });
      const form = await checkoutForm(t, c.uuid);
      const now = new Date();
      const lastMonth =
        what === 'last month'
          ? now.getUTCMonth() === 0
            ? { exp_month: '12', exp_year: String(now.getUTCFullYear() - 1) }
            : { exp_month: String(now.getUTCMonth()), exp_year: String(now.getUTCFullYear()) }
          : {};
      const typed = { exp_month: '11', exp_year: '2031', ...override, ...lastMonth };
      const r = await submitCard(form, { number: ACCEPTED, cvv: '321' }, typed);
      assert.equal(r.status, 422);
      assert.match(r.contentType ?? '', /text\/html/);
      assert.match(r.body, /<html lang="en">/);
      assert.match(r.body, /TEST MODE/);
      assert.match(r.body, /Hôtel des Tests/, 'the hotel is named');
      const error = /<p class="error" role="alert" id="card-error">([^<]*)<\/p>/.exec(r.body);
      assert.ok(error, 'one error message, announced');
      assert.match(error[1] ?? '', message);
      // Beside the field: right under the label of the first input it concerns.
      assert.match(r.body, new RegExp(`<label for="${inputs[0]}">[^<]*</label>\\s*<p class="error"`));
      for (const name of ['card_number', 'exp_month', 'exp_year', 'cvv']) {
        const tag = inputTag(r.body, name);
        if (inputs.includes(name)) {
          assert.match(tag, /aria-describedby="card-error"/, `${name} points at the error`);
          assert.match(tag, /aria-invalid="true"/);
        } else {
          assert.doesNotMatch(tag, /aria-describedby|aria-invalid/, `${name} is not in error`);
        }
      }
      assert.match(inputTag(r.body, 'card_number'), /value=""/, 'the card number is typed again');
      assert.match(inputTag(r.body, 'cvv'), /value=""/, 'the CVV is typed again');
      assert.match(inputTag(r.body, 'exp_month'), new RegExp(`value="${typed.exp_month}"`), 'the month is kept');
      assert.match(inputTag(r.body, 'exp_year'), new RegExp(`value="${typed.exp_year}"`), 'the year is kept');
      assert.match(r.body, new RegExp(`name="signature" value="${form.hiddenFields.signature}"`));
      assert.match(r.body, new RegExp(`name="attempt_id" value="${form.hiddenFields.attempt_id}"`));
      assert.match(r.body, new RegExp(`name="order_id" value="${c.uuid}"`));
      assert.match(r.body, /4000000000000002/, 'the test cards are listed');
      assert.doesNotMatch(r.body, /<script/i);
      assert.equal((await detail(t, c.uuid)).status, 'NOT_INITIATED');
      const txn = await t.db.query('SELECT id FROM sandbox_transactions WHERE order_id = $1', [c.uuid]);
      assert.equal(txn.rows.length, 0);
    });
  }

  const languages: [string, RegExp, RegExp, RegExp][] = [
    ['fr', /MODE TEST/, /Le numéro de carte n’est pas valide/, /Payer \(test\)/],
    ['de', /TESTMODUS/, /Die Kartennummer ist ungültig/, /Bezahlen \(Test\)/],
    ['en', /TEST MODE/, /The card number is not valid/, /Pay \(test\)/],
  ];
  for (const [language, banner, error, button] of languages) {
    test(`a mistake on a request in ${language}: the page in ${language}, naming the hotel`, async () => {
      const tenant = await t.newTenant('Gasthof <Zum Löwen> & Spa');
      const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 50, language }, tenant);
      const r = await submitCard(await checkoutForm(t, c.uuid), { number: '4242424242424241' });
      assert.equal(r.status, 422);
      assert.match(r.body, new RegExp(`<html lang="${language}">`));
      assert.match(r.body, banner);
      assert.match(r.body, error);
      assert.match(r.body, button);
      assert.match(r.body, /Gasthof &lt;Zum Löwen&gt; &amp; Spa/, 'the hotel, escaped');
    });
  }

  test('an expired form: 410, a page in the request language that says so and leads back; nothing charged', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 33, language: 'de' });
    const fresh = await checkoutForm(t, c.uuid);
    const old = resigned(t.app.payreq.secretKey, fresh, { expires_at: new Date(Date.now() - 1000).toISOString() });
    const r = await submitCard(old, { number: ACCEPTED });
    assert.equal(r.status, 410);
    assert.match(r.contentType ?? '', /text\/html/);
    assert.match(r.body, /<html lang="de">/);
    assert.match(r.body, /TESTMODUS/);
    assert.match(r.body, /abgelaufen/);
    assert.match(r.body, /nichts belastet/);
    assert.match(r.body, new RegExp(`<a href="${t.baseUrl}/payment/${c.uuid}/result/">Zurück zu Hôtel des Tests</a>`));
    assert.equal((await detail(t, c.uuid)).status, 'NOT_INITIATED');
    assert.deepEqual(await sandboxRows(c.uuid), { transactions: [], notifications: 0 });
    // A form still in its 30 minutes goes through: only the expiry made the difference.
    assert.equal((await submitCard(fresh, { number: ACCEPTED })).status, 303);
    assert.equal((await detail(t, c.uuid)).status, 'CAPTURED');
  });

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
    ['the expiry', (f) => ({ ...f, expires_at: new Date(Date.now() + 86_400_000).toISOString() })],
    ['the attempt id', (f) => ({ ...f, attempt_id: 'att_00000000-0000-4000-8000-000000000000' })],
    ['the merchant name', (f) => ({ ...f, merchant_name: 'Evil Corp' })],
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
      // The request is in French; the page takes the form's language as a hint only.
      assert.match(r.body, /MODE TEST/);
      assert.match(r.body, /a été modifié/);
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
