import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { isIsoDate } from '../../src/domain/index.ts';
import { auditResponses, countRows, createBody, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

const BASE = '/api/payment-requests/';
const RUNS = Number(process.env.FC_RUNS ?? 150);
// FC_SEED=<seed printed by a failure> replays a failing run.
const SEED = process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {};

/** Visible ASCII and space: what an HTTP header value may carry. */
const headerText = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 40,
});
/** Any text, including NUL, lone surrogates and astral characters. */
const anyText = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('\u0000', 'a\u0000b', '\ud800'));

/** A value for any field: right type or not. */
const anyValue = fc.oneof(
  fc.jsonValue(),
  anyText,
  fc.double(),
  fc.integer(),
  fc.constantFrom(null, true, [], {}, '', 0, -1, 1e21, 0.001, '2026-02-30', 'a@b.co'),
);

const isoDate = fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
/** Mostly right, sometimes subtly wrong, sometimes anything at all. */
const field = (valid: fc.Arbitrary<unknown>, wrong: fc.Arbitrary<unknown>) =>
  fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: wrong }, { weight: 1, arbitrary: anyValue });

/** Values a field might get from a PMS. */
const fields: Record<string, fc.Arbitrary<unknown>> = {
  request_type: field(fc.constantFrom('IMPRINT', 'DEPOSIT'), fc.constantFrom('imprint', 'REFUND', '')),
  amount: field(
    fc.integer({ min: 1, max: 100_000_000 }).map((c) => c / 100),
    fc.oneof(fc.double({ min: -10, max: 2_000_000, noNaN: true }), fc.constantFrom(0, 0.001, 1_000_000.01)),
  ),
  currency: field(fc.constantFrom('EUR', 'CHF', 'USD'), fc.constantFrom('GBP', 'eur')),
  guest_email: field(fc.emailAddress(), fc.oneof(fc.constantFrom('nope', '', 'a@'), anyText)),
  guest_first_name: field(fc.string({ minLength: 1, maxLength: 100 }), fc.oneof(fc.constant(''), anyText)),
  guest_last_name: field(fc.string({ minLength: 1, maxLength: 100 }), fc.string({ minLength: 101, maxLength: 120 })),
  guest_phone: field(fc.string({ maxLength: 32 }), fc.oneof(fc.string({ minLength: 33, maxLength: 40 }), anyText)),
  language: field(fc.constantFrom('fr', 'en', 'de'), fc.constantFrom('es', 'FR')),
  reservation_ref: field(fc.string({ minLength: 1, maxLength: 100 }), fc.oneof(fc.constant(''), anyText)),
  reservation_data: field(
    fc.record({ checkin: isoDate, room_type: fc.string(), notes: fc.jsonValue() }, { requiredKeys: [] }),
    fc.oneof(
      fc.record(
        {
          checkin: fc.oneof(fc.constantFrom('2026-02-30', '', '2026-1-1'), anyValue),
          checkout: fc.oneof(isoDate, anyValue),
          room_type: anyText,
        },
        { requiredKeys: [] },
      ),
      fc.dictionary(fc.string(), fc.jsonValue()),
    ),
  ),
};
const fieldNames = Object.keys(fields);

/** A valid body with a few fields replaced or removed, and perhaps unknown ones added. */
const mutatedBody = fc
  .record({
    base: fc.constantFrom(
      createBody(),
      createBody({ request_type: 'DEPOSIT', amount: 80 }),
      createBody({ reservation_data: {} }),
    ),
    replaced: fc
      .uniqueArray(fc.constantFrom(...fieldNames), { maxLength: 4 })
      .chain((names) => fc.record(Object.fromEntries(names.map((n) => [n, fields[n] as fc.Arbitrary<unknown>])))),
    removed: fc.uniqueArray(fc.constantFrom(...fieldNames), { maxLength: 2 }),
    added: fc.dictionary(fc.string({ maxLength: 20 }), fc.jsonValue(), { maxKeys: 3 }),
  })
  .map(({ base, replaced, removed, added }) => {
    const body: Record<string, unknown> = { ...added, ...base, ...replaced };
    for (const k of removed) delete body[k];
    return body;
  });

/** What is sent: a JSON text, or raw bytes that may not be JSON at all. */
const payload = fc.oneof(
  { weight: 5, arbitrary: mutatedBody.map((b) => JSON.stringify(b)) },
  { weight: 2, arbitrary: fc.anything().map((v) => JSON.stringify(v) ?? '') },
  { weight: 2, arbitrary: fc.object().map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: anyText },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)) },
);

interface Headers {
  contentType: string | undefined;
  idempotencyKey: string | undefined;
  requestId: string | undefined;
  accept: string | undefined;
  contentEncoding: string | undefined;
  apiKey: 'valid' | 'absent' | 'garbage';
  garbageKey: string;
}

const headers: fc.Arbitrary<Headers> = fc.record({
  contentType: fc.option(
    fc.oneof(
      { weight: 6, arbitrary: fc.constant('application/json') },
      {
        weight: 2,
        arbitrary: fc.constantFrom(
          'application/json; charset=utf-8',
          'application/JSON',
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data',
          'application/json; charset=latin1',
          '',
        ),
      },
      { weight: 1, arbitrary: headerText },
    ),
    { freq: 10 },
  ),
  idempotencyKey: fc.option(headerText, { freq: 3 }),
  requestId: fc.option(headerText, { freq: 3 }),
  accept: fc.option(fc.oneof(fc.constantFrom('application/json', 'text/html', '*/*'), headerText), { freq: 3 }),
  contentEncoding: fc.option(fc.constantFrom('gzip', 'identity', 'br'), { freq: 10 }),
  apiKey: fc.oneof(
    { weight: 10, arbitrary: fc.constant('valid' as const) },
    { weight: 1, arbitrary: fc.constantFrom('absent' as const, 'garbage' as const) },
  ),
  garbageKey: headerText,
});

describe(`POST /api/payment-requests/ under random input (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ env: { CREATE_RATE_LIMIT: '0' } });
  });
  after(() => t.close());

  function send(body: string | Buffer, h: Headers): Promise<LightMyRequestResponse> {
    const hs: Record<string, string> = {};
    if (h.contentType !== undefined) hs['content-type'] = h.contentType;
    if (h.idempotencyKey !== undefined) hs['idempotency-key'] = h.idempotencyKey;
    if (h.requestId !== undefined) hs['x-request-id'] = h.requestId;
    if (h.accept !== undefined) hs.accept = h.accept;
    if (h.contentEncoding !== undefined) hs['content-encoding'] = h.contentEncoding;
    if (h.apiKey === 'garbage') hs['x-api-key'] = h.garbageKey;
    return t.call({
      method: 'POST',
      url: BASE,
      payload: body,
      headers: hs,
      tenant: h.apiKey === 'absent' ? null : t.tenant,
    });
  }

  /** The invariants of any answer to a create, and the row count that must follow from it. */
  async function check(body: string | Buffer, h: Headers) {
    const before = await countRows(t.db);
    const r = await send(body, h);
    assert.ok(r.statusCode < 500, `${r.statusCode}: ${r.body}`);
    assert.ok(r.headers['x-request-id'], 'x-request-id');
    assert.match(String(r.headers['content-type']), /^application\/json/);
    const json = JSON.parse(r.body);
    const after = await countRows(t.db);
    if (r.statusCode === 201) {
      // The contract's four fields, and `warnings` exactly when the stored IMPRINT has no
      // check-in date (the daily job will never hold it).
      const stored = await t.repos.paymentRequests.find(t.tenant.tenantId, json.uuid);
      const undated = stored?.request_type === 'IMPRINT' && !isIsoDate(stored.reservation_data.checkin);
      assert.deepEqual(Object.keys(json).sort(), [
        'payment_link',
        'reference',
        'status',
        'uuid',
        ...(undated ? ['warnings'] : []),
      ]);
      if (undated)
        assert.deepEqual(
          json.warnings.map((w: { code: string }) => w.code),
          ['no_hold_will_be_placed'],
        );
      assert.equal(json.status, 'NOT_INITIATED');
      assert.equal(json.payment_link, `/payment/${json.uuid}/`);
      assert.match(json.reference, /^(IMP|DEP)-\d{4}-\d{4,}$/);
      const replayed = r.headers['idempotent-replayed'] === 'true';
      assert.equal(after, before + (replayed ? 0 : 1), 'a 201 creates exactly one row, a replay none');
      return { status: 201, json };
    }
    assert.equal(typeof json.error, 'string', r.body);
    assert.ok(json.error.length > 0);
    assert.equal(after, before, `no row for a ${r.statusCode}`);
    if (r.statusCode === 401) assert.equal(json.detail, 'Unauthorized');
    if (r.statusCode === 422 && json.error === 'Validation failed') {
      assert.ok(Array.isArray(json.details) && json.details.length > 0, r.body);
      for (const d of json.details) {
        assert.equal(typeof d.field, 'string');
        assert.equal(typeof d.message, 'string');
      }
    }
    return { status: r.statusCode, json };
  }

  test('random bodies and headers: never a 5xx, always JSON with an error or the 201 shape, rows only for 201', async () => {
    await fc.assert(
      fc.asyncProperty(payload, headers, (body, h) => check(body, h).then(() => undefined)),
      { numRuns: RUNS, ...SEED },
    );
  });

  test('mutated valid bodies with a valid key and JSON: a 201 stores what was sent', async () => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(mutatedBody, async (body) => {
        const h: Headers = {
          contentType: 'application/json',
          idempotencyKey: undefined,
          requestId: undefined,
          accept: undefined,
          contentEncoding: undefined,
          apiKey: 'valid',
          garbageKey: '',
        };
        const text = JSON.stringify(body);
        const { status, json } = await check(text, h);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (status !== 201) return;
        const d = (await t.call({ method: 'GET', url: `${BASE}${json.uuid}/` })).json();
        const sent = JSON.parse(text);
        assert.equal(d.request_type, sent.request_type);
        assert.equal(d.amount, sent.amount ?? 0);
        assert.equal(d.currency, sent.currency ?? 'EUR');
        assert.equal(d.guest_email, sent.guest_email);
        assert.equal(d.guest_first_name, sent.guest_first_name);
        assert.equal(d.guest_last_name, sent.guest_last_name);
        assert.equal(d.reservation_ref, sent.reservation_ref);
        if (!/"(__proto__|constructor)"/.test(text)) assert.deepEqual(d.reservation_data, sent.reservation_data ?? {});
      }),
      { numRuns: RUNS, ...SEED },
    );
    // The generator reaches both sides of the validation, or the property proves little.
    assert.ok((statuses.get(201) ?? 0) > 0, `no 201 among ${JSON.stringify([...statuses])}`);
    assert.ok(
      [...statuses.keys()].some((s) => s !== 201),
      `only 201s: ${JSON.stringify([...statuses])}`,
    );
  });

  test('every response carried x-request-id and none was a 5xx', () => auditResponses(t));
});
