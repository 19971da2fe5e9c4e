import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { MAX_JSON_DEPTH } from '../../src/api/index.ts';
import {
  auditResponses,
  countRows,
  createBody,
  createRequest,
  ENGINE,
  startTestApp,
  type TestApp,
} from '../helpers/test-app.ts';

const BASE = '/api/payment-requests/';
const RUNS = Number(process.env.FC_RUNS ?? 100);
const SEED = process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {};
const SOME_UUID = '6f1c2a52-7d3e-4a41-9a55-0c8f5b0e2d11';

/** `reservation_data` nested so that the whole body is `depth` levels deep (the body is level 1). */
function bodyOfDepth(depth: number, container: 'object' | 'array' = 'object'): string {
  const inner = depth - 2;
  const open = container === 'object' ? '{"a":'.repeat(inner) : '['.repeat(inner);
  const close = container === 'object' ? '}'.repeat(inner) : ']'.repeat(inner);
  const data = container === 'object' ? `{"x":${open}1${close}}` : `{"x":${open}1${close}}`;
  return JSON.stringify(createBody({ reservation_data: {} })).replace(
    '"reservation_data":{}',
    `"reservation_data":${data}`,
  );
}

/** A valid create body with `bytes` spliced raw into guest_last_name. */
function bodyWithBytes(bytes: readonly number[]): Buffer {
  const [head, tail] = JSON.stringify(createBody({ guest_last_name: 'Ma@@rtin' })).split('@@');
  return Buffer.concat([Buffer.from(head ?? ''), Buffer.from(bytes), Buffer.from(tail ?? '')]);
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
function isUtf8(bytes: Uint8Array): boolean {
  try {
    strictUtf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

const cursorOf = (text: string) => Buffer.from(text).toString('base64url');

describe(`hostile input: documented 4xx, nothing stored, never a 5xx (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ env: { CREATE_RATE_LIMIT: '0' } });
  });
  after(() => t.close());

  const raw = (payload: string | Buffer, url = BASE) =>
    t.call({ method: 'POST', url, payload, headers: { 'content-type': 'application/json' } });

  /** Asserts the status and code, and that no payment request appeared. */
  async function refused(status: number, code: string, send: () => Promise<LightMyRequestResponse>) {
    const before = await countRows(t.db);
    const r = await send();
    assert.equal(r.statusCode, status, r.body);
    assert.equal(r.json().code, code, r.body);
    assert.equal(typeof r.json().error, 'string');
    assert.equal(await countRows(t.db), before, 'no row created');
    return r;
  }

  test(`nesting deeper than ${MAX_JSON_DEPTH} levels is a 400 json_too_deep, checked before anything walks it`, async () => {
    for (const depth of [MAX_JSON_DEPTH + 1, 100, 5000, 50_000]) {
      for (const container of ['object', 'array'] as const) {
        const body = bodyOfDepth(depth, container);
        if (Buffer.byteLength(body) > 64 * 1024) continue; // the 413 answers first
        const r = await refused(400, 'json_too_deep', () => raw(body));
        assert.equal(r.json().max_depth, MAX_JSON_DEPTH);
      }
    }
    // At the limit it is an ordinary body.
    assert.equal((await raw(bodyOfDepth(MAX_JSON_DEPTH))).statusCode, 201);
    // Brackets inside strings are text, not nesting.
    const brackets = JSON.stringify(createBody({ reservation_data: { note: `${'[{'.repeat(200)}"\\` } }));
    assert.equal((await raw(brackets)).statusCode, 201);
  });

  test('a capture body with __proto__ or deep nesting is refused before the money moves', async () => {
    const { uuid } = await createRequest(t, { reservation_ref: 'CAPTURE-PROTO' });
    const url = `${BASE}${uuid}/capture/`;
    await refused(400, 'forbidden_json_key', () => raw('{"__proto__":{"amount":1}}', url));
    await refused(400, 'json_too_deep', () => raw(`{"amount":${'['.repeat(40)}${']'.repeat(40)}}`, url));
    const d = (await t.call({ method: 'GET', url: `${BASE}${uuid}/` })).json();
    assert.equal(d.status, 'NOT_INITIATED');
    assert.equal(d.amount_captured, 0);
  });

  test('a key twice in one object, at any depth, is a 400 invalid_json naming it; the same key in two objects is fine', async () => {
    const body = JSON.stringify(createBody({ reservation_ref: 'DUP-1' }));
    for (const [text, key] of [
      [body.replace('"amount":150', '"amount":150,"amount":1'), 'amount'],
      [body.replace('{', '{"request_type":"DEPOSIT",'), 'request_type'],
      [body.replace('"room_type":"Double"', '"room_type":"Double","room_type":"Suite"'), 'room_type'],
      [body.replace('"reservation_data":{', '"reservation_data":{"x":[{"a":1,"a":2}],'), 'a'],
      // Equal once decoded: a parser reads both as one key.
      [body.replace('"amount":150', '"amount":150,"\\u0061mount":1'), 'amount'],
    ] as const) {
      const r = await refused(400, 'invalid_json', () => raw(text));
      assert.equal(
        r.json().error,
        `Request body is not valid JSON for this API: the key "${key}" appears twice in one object`,
      );
    }
    // Apart from duplicates, a body says what it did before: equal keys in sibling objects, and
    // key-like text inside strings, are ordinary.
    const fine = JSON.stringify(
      createBody({ reservation_ref: 'DUP-2', reservation_data: { a: { n: 1 }, b: { n: 2 }, note: '"n":1,"n":2' } }),
    );
    assert.equal((await raw(fine)).statusCode, 201, fine);
    const { uuid } = await createRequest(t, { reservation_ref: 'DUP-CAPTURE' });
    await refused(400, 'invalid_json', () => raw('{"amount":1,"amount":100}', `${BASE}${uuid}/capture/`));
  });

  test('the event feed: `after` beyond the largest id a JSON number names exactly is a 422 naming it', async () => {
    for (const after of ['9223372036854775807', '1e23', '9007199254740992', '1e308']) {
      const r = await t.call({ method: 'GET', url: `/api/events/?after=${after}` });
      assert.equal(r.statusCode, 422, `${after}: ${r.body}`);
      assert.deepEqual(
        (r.json().details as { field: string }[]).map((d) => d.field),
        ['after'],
      );
    }
    const edge = await t.call({ method: 'GET', url: `/api/events/?after=${Number.MAX_SAFE_INTEGER}` });
    assert.equal(edge.statusCode, 200, edge.body);
    assert.deepEqual(edge.json(), []);
  });

  test('invalid UTF-8 is a 400 invalid_utf8, never stored as U+FFFD', async () => {
    for (const bytes of [
      [0xff],
      [0xc3, 0x28], // a lead byte without its continuation
      [0xc0, 0xaf], // an overlong "/"
      [0xed, 0xa0, 0x80], // a UTF-16 surrogate encoded as UTF-8
      [0xf4, 0x90, 0x80, 0x80], // above U+10FFFF
      [0xe2, 0x82], // cut short
    ]) {
      await refused(400, 'invalid_utf8', () => raw(bodyWithBytes(bytes)));
    }
    // The same name in valid UTF-8 is stored exactly.
    const r = await raw(bodyWithBytes([...Buffer.from('ë')]));
    assert.equal(r.statusCode, 201, r.body);
    const d = (await t.call({ method: 'GET', url: `${BASE}${r.json().uuid}/` })).json();
    assert.equal(d.guest_last_name, 'Maërtin');
  });

  test('random bytes inside a name: invalid UTF-8 is always the 400, valid bytes never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 6 }), async (bytes) => {
        const before = await countRows(t.db);
        const r = await raw(bodyWithBytes([...bytes]));
        assert.ok(r.statusCode < 500, `${r.statusCode}: ${r.body}`);
        if (!isUtf8(bytes)) assert.equal(r.json().code, 'invalid_utf8', r.body);
        assert.equal(await countRows(t.db), before + (r.statusCode === 201 ? 1 : 0));
      }),
      { numRuns: RUNS, ...SEED },
    );
  });

  test('bidirectional controls in names and the reservation reference are a 422 naming the field', async () => {
    const controls = ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069'];
    for (const c of [...controls, '\u200e', '\u200f', '\u061c']) {
      for (const field of ['guest_first_name', 'guest_last_name', 'reservation_ref']) {
        const r = await refused(422, 'validation_failed', () =>
          raw(JSON.stringify(createBody({ [field]: `Jea${c}nne` }))),
        );
        assert.deepEqual(r.json().details, [
          {
            field,
            message:
              field === 'reservation_ref'
                ? 'must not contain NUL characters, unpaired surrogates or bidirectional control characters'
                : 'must be one line: no line breaks or other control characters, unpaired surrogates or bidirectional control characters',
            code: 'plain_text',
          },
        ]);
      }
    }
    // Right-to-left scripts themselves are names like any other.
    const r = await raw(JSON.stringify(createBody({ guest_last_name: 'مارتن', guest_first_name: 'יוסף' })));
    assert.equal(r.statusCode, 201, r.body);
  });

  test('created_after / created_before outside years 0001 to 9999 are a 422 naming the field', async () => {
    for (const value of [
      '0000-01-01T00:00:00Z',
      '0001-01-01T00:00:00+01:00', // 31 December of year 0 in UTC
      '-271821-04-20T00:00:00Z',
      '+275760-09-13T00:00:00Z',
      '+010000-01-01T00:00:00Z',
      '10000-01-01T00:00:00Z',
    ]) {
      for (const field of ['created_after', 'created_before']) {
        const r = await t.call({ method: 'GET', url: `${BASE}?${field}=${encodeURIComponent(value)}` });
        assert.equal(r.statusCode, 422, `${field}=${value}: ${r.body}`);
        assert.ok(
          (r.json().details as { field: string }[]).some((d) => d.field === field),
          `${field}=${value}: ${r.body}`,
        );
      }
    }
    // The edges themselves are accepted.
    for (const q of ['created_after=0001-01-01T00:00:00Z', 'created_before=9999-12-31T23:59:59Z']) {
      const r = await t.call({ method: 'GET', url: `${BASE}?${q}` });
      assert.equal(r.statusCode, 200, `${q}: ${r.body}`);
    }
  });

  test('a cursor holding a date outside years 0001 to 9999 is a 400 invalid_cursor', async () => {
    for (const at of [
      '0000-01-01T00:00:00.000Z',
      '-000001-01-01T00:00:00.000Z',
      '-271821-04-20T00:00:00.000Z',
      '+275760-09-13T00:00:00.000Z',
      '+010000-01-01T00:00:00.000Z',
    ]) {
      const url = `${BASE}?cursor=${cursorOf(`${at}|${SOME_UUID}`)}`;
      const r = await refused(400, 'invalid_cursor', () => t.call({ method: 'GET', url }));
      assert.equal(r.json().error, 'Invalid pagination cursor');
    }
    const edge = await t.call({
      method: 'GET',
      url: `${BASE}?cursor=${cursorOf(`0001-01-01T00:00:00.000Z|${SOME_UUID}`)}`,
    });
    assert.equal(edge.statusCode, 200, edge.body);
  });

  test('every response carried x-request-id and none was a 5xx', () => auditResponses(t));
});
