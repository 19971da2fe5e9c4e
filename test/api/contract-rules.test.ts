import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { contractOf, type OpenApiContract, type OpenApiDocument } from '../helpers/openapi-contract.ts';
import { auditResponses, createBody, createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

const BASE = '/api/payment-requests/';

// The document states the rules the service enforces: what the schema calls valid is accepted,
// what it calls invalid is refused, case by case at the edges of each rule.
describe(`the schemas state the service's rules (${ENGINE})`, () => {
  let t: TestApp;
  let contract: OpenApiContract;
  before(async () => {
    t = await startTestApp({ env: { CREATE_RATE_LIMIT: '0' } });
    const doc = (await t.call({ method: 'GET', url: '/api/openapi.json', tenant: null })).json() as OpenApiDocument;
    contract = contractOf(doc);
  });
  after(() => t.close());

  /** The document's verdict and the service's answer for one create body, side by side. */
  async function both(overrides: Record<string, unknown>, drop: string[] = []) {
    const body: Record<string, unknown> = createBody({ reservation_ref: `RULE-${Math.random()}`, ...overrides });
    for (const k of drop) delete body[k];
    const schema = contract.checkRequestBody('POST', BASE, body);
    const r = await t.call({ method: 'POST', url: BASE, payload: body });
    return { valid: schema.length === 0, schema, status: r.statusCode, answer: r.json() };
  }

  const CASES: [string, Record<string, unknown>, string[]?][] = [
    ['two decimals', { amount: 0.07 }],
    ['two decimals, large', { amount: 999_999.99 }],
    ['the maximum', { amount: 1_000_000 }],
    ['above the maximum', { amount: 1_000_000.01 }],
    ['three decimals', { amount: 10.001 }],
    ['a tiny fraction', { amount: 0.000001 }],
    ['negative', { amount: -1 }],
    ['an IMPRINT of 0', { request_type: 'IMPRINT', amount: 0 }],
    ['an IMPRINT without amount', { request_type: 'IMPRINT' }, ['amount']],
    ['a DEPOSIT without amount', { request_type: 'DEPOSIT' }, ['amount']],
    ['a DEPOSIT of 0', { request_type: 'DEPOSIT', amount: 0 }],
    ['a DEPOSIT of -5', { request_type: 'DEPOSIT', amount: -5 }],
    ['a DEPOSIT of 0.01', { request_type: 'DEPOSIT', amount: 0.01 }],
    ['a leap day', { reservation_data: { checkin: '2028-02-29', checkout: '2028-03-01' } }],
    ['no such leap day', { reservation_data: { checkin: '2027-02-29' } }],
    ['no 30 February', { reservation_data: { checkin: '2026-02-30' } }],
    ['a year before 0100', { reservation_data: { checkin: '0099-12-31' } }],
    ['the year 0100', { reservation_data: { checkin: '0100-01-01' } }],
    ['a date and time', { reservation_data: { checkin: '2026-12-24T14:00:00Z' } }],
    ['a date as a number', { reservation_data: { checkout: 20261227 } }],
    ['no dates, other keys', { reservation_data: { room_type: 'Suite', adults: 2 } }],
    // Issue 47: `format: email` allowed these three, the service refused them; the document now
    // states the service's own pattern.
    ['an e-mail of one label', { guest_email: 'x@dev' }],
    ['a quoted local part', { guest_email: '"a b"@example.com' }],
    ['an address literal', { guest_email: 'a@[127.0.0.1]' }],
    ['an e-mail with capitals, a plus and an apostrophe', { guest_email: "O'Brien+x@Mail.Example.co.uk" }],
    ['two dots in a row', { guest_email: 'a..b@example.com' }],
  ];

  for (const [name, overrides, drop] of CASES) {
    test(`${name}: the document and the service agree`, async () => {
      const r = await both(overrides, drop);
      assert.equal(
        r.status === 201,
        r.valid,
        `document ${r.valid ? 'valid' : `invalid (${r.schema.join('; ')})`}, service ${r.status} ${JSON.stringify(r.answer)}`,
      );
      if (!r.valid) assert.ok([400, 422].includes(r.status), `${r.status}`);
    });
  }

  test('the refusals keep their codes: 400 deposit_amount_required, 422 amount_* and date_format', async () => {
    const codes = async (overrides: Record<string, unknown>, drop: string[] = []) => {
      const r = await both(overrides, drop);
      return r.answer.code === 'validation_failed'
        ? r.answer.details.map((d: { field: string; code: string }) => `${d.field}:${d.code}`)
        : [r.answer.code];
    };
    assert.deepEqual(await codes({ request_type: 'DEPOSIT' }, ['amount']), ['deposit_amount_required']);
    assert.deepEqual(await codes({ request_type: 'DEPOSIT', amount: -5 }), ['deposit_amount_required']);
    assert.deepEqual(await codes({ amount: -1 }), ['amount:amount_negative']);
    assert.deepEqual(await codes({ amount: 1_000_001 }), ['amount:amount_too_large']);
    assert.deepEqual(await codes({ amount: 10.001 }), ['amount:amount_decimals']);
    assert.deepEqual(await codes({ reservation_data: { checkin: '2026-02-30' } }), [
      'reservation_data.checkin:date_format',
    ]);
    // Beside a schema refusal of another field, every field in one answer, each said once.
    assert.deepEqual(await codes({ amount: 10.001, guest_email: 'nope', reservation_data: { checkin: 'soon' } }), [
      'amount:amount_decimals',
      'guest_email:format_email',
      'reservation_data.checkin:date_format',
    ]);
  });

  test('checkout before checkin: the one create rule no schema can state, said in the document', async () => {
    const r = await both({ reservation_data: { checkin: '2026-12-24', checkout: '2026-12-20' } });
    assert.equal(r.status, 422);
    assert.equal(r.answer.details[0].code, 'checkout_before_checkin');
    const doc = (await t.call({ method: 'GET', url: '/api/openapi.json', tenant: null })).json();
    const data = doc.components.schemas.CreatePaymentRequest.properties.reservation_data;
    assert.match(data.description, /checkout` not before `checkin/);
    assert.equal(data.properties.checkin.format, 'date');
    assert.equal(data.properties.checkout.format, 'date');
  });

  test('the event feed declares the Link header it sends on a full page', async () => {
    await createRequest(t);
    await createRequest(t);
    const doc = (await t.call({ method: 'GET', url: '/api/openapi.json', tenant: null })).json();
    assert.equal(doc.paths['/api/events/'].get.responses['200'].headers?.Link?.schema?.type, 'string');
    // On PostgreSQL the feed shows an event once every older transaction of the server has
    // ended (other tests' included): the full page is awaited as a condition, not assumed.
    const deadline = Date.now() + 60_000;
    let r = await t.call({ method: 'GET', url: '/api/events/?limit=1' });
    while (r.headers.link === undefined && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      r = await t.call({ method: 'GET', url: '/api/events/?limit=1' });
    }
    assert.equal(r.statusCode, 200);
    assert.match(String(r.headers.link), /^<http[^>]+\/api\/events\/\?after=\d+&limit=1>; rel="next"$/);
  });

  test('capture and refund amounts: at most the maximum, stated and enforced, said as too large', async () => {
    const c = await createRequest(t, { amount: 100 });
    await arrangeStatus(t.db, c.uuid, 'AUTHORISED_TO_VALIDATE');
    for (const op of ['capture', 'refund']) {
      const url = `${BASE}${c.uuid}/${op}/`;
      for (const amount of [970595663.56, 1_000_000.01]) {
        assert.ok(
          contract.checkRequestBody('POST', url, { amount }).length > 0,
          `${op} ${amount}: invalid by the document`,
        );
        const r = await t.call({ method: 'POST', url, payload: { amount } });
        assert.equal(r.statusCode, 422, r.body);
        assert.deepEqual(
          r.json().details.map((d: { field: string; code: string }) => `${d.field}:${d.code}`),
          ['amount:amount_too_large'],
        );
      }
      assert.deepEqual(
        contract.checkRequestBody('POST', url, { amount: 1_000_000 }),
        [],
        `${op}: the maximum is valid`,
      );
    }
  });

  test('capture and refund amounts: two decimals, above 0, stated and enforced', async () => {
    const c = await createRequest(t, { amount: 100 });
    await arrangeStatus(t.db, c.uuid, 'AUTHORISED_TO_VALIDATE');
    for (const amount of [10.001, 0, -1]) {
      const url = `${BASE}${c.uuid}/capture/`;
      assert.ok(contract.checkRequestBody('POST', url, { amount }).length > 0, `${amount} is invalid by the document`);
      const r = await t.call({ method: 'POST', url, payload: { amount } });
      assert.equal(r.statusCode, 422, r.body);
    }
    const url = `${BASE}${c.uuid}/capture/`;
    assert.deepEqual(contract.checkRequestBody('POST', url, { amount: 0.07 }), []);
    assert.equal((await t.call({ method: 'POST', url, payload: { amount: 0.07 } })).statusCode, 200);
  });

  test('statuses: refs must name a reference (not only commas and spaces), as the 400 says', async () => {
    const url = `${BASE}statuses/`;
    for (const refs of ['', ',', ' , ', '\uFEFF,\t']) {
      assert.ok(contract.checkParameter('GET', url, 'refs', refs).length > 0, JSON.stringify(refs));
      const r = await t.call({ method: 'GET', url: `${url}?refs=${encodeURIComponent(refs)}` });
      assert.equal(r.statusCode, 400, `${JSON.stringify(refs)}: ${r.body}`);
      assert.equal(r.json().code, 'refs_required');
    }
    for (const refs of ['a', ' a ,', 'BK-1,BK-2']) {
      assert.deepEqual(contract.checkParameter('GET', url, 'refs', refs), [], refs);
      assert.equal((await t.call({ method: 'GET', url: `${url}?refs=${encodeURIComponent(refs)}` })).statusCode, 200);
    }
  });

  test('a keyed answer names Idempotent-Replayed in the document, and a replay carries it', async () => {
    const headers = { ...t.tenant.headers, 'idempotency-key': 'contract-rules-replay' };
    const body = createBody({ reservation_ref: 'RULE-REPLAY' });
    await t.call({ method: 'POST', url: BASE, payload: body, headers });
    const again = await t.call({ method: 'POST', url: BASE, payload: body, headers });
    assert.equal(again.headers['idempotent-replayed'], 'true');
    const found = contract.operation('POST', BASE);
    const responses = (found?.op.responses ?? {}) as Record<string, { headers?: Record<string, unknown> }>;
    const replayed = responses['201']?.headers;
    assert.ok(replayed?.['Idempotent-Replayed']);
  });

  test('the response check of every API test refuses what the document does not describe', async () => {
    const c = await createRequest(t);
    const url = `${BASE}${c.uuid}/`;
    const real = await t.call({ method: 'GET', url });
    const seen = { method: 'GET', url, status: 200, headers: real.headers, body: real.body };
    assert.deepEqual(contract.checkResponse(seen), []);
    const { uuid: _gone, ...noUuid } = real.json();
    const wrong = [
      { ...seen, status: 418 },
      { ...seen, body: JSON.stringify(noUuid) },
      { ...seen, body: JSON.stringify({ ...real.json(), status: 'PAID' }) },
      { ...seen, headers: { ...seen.headers, 'content-type': 'text/html' } },
      { ...seen, status: 404, body: JSON.stringify({ error: 'x', code: 'nope' }) },
      {
        method: 'POST',
        url: BASE,
        status: 201,
        headers: { ...seen.headers, 'idempotent-replayed': 'yes', location: real.headers['x-request-id'] },
        body: JSON.stringify({ uuid: c.uuid, reference: c.reference, status: 'NOT_INITIATED', payment_link: 'x' }),
      },
    ];
    for (const response of wrong) {
      assert.ok((contract.checkResponse(response) ?? []).length > 0, JSON.stringify(response).slice(0, 200));
    }
    // A route the document does not have is not its to judge.
    assert.equal(contract.checkResponse({ ...seen, url: '/api/nothing/' }), undefined);
  });

  test('every response carried x-request-id and none was a 5xx', () => auditResponses(t));
});
