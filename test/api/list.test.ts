import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { arrangeStatus } from '../helpers/fixtures.ts';
import {
  auditResponses,
  createRequest,
  ENGINE,
  startTestApp,
  type TenantWithKey,
  type TestApp,
} from '../helpers/test-app.ts';

const BASE = '/api/payment-requests/';

interface Detail {
  uuid: string;
  status: string;
  request_type: string;
  reservation_ref: string;
  created_at: string;
}

/** The path and query of the rel="next" URL of a Link header, or undefined. */
function nextLink(header: unknown, baseUrl: string): string | undefined {
  if (header === undefined) return undefined;
  const m = /^<([^>]+)>;\s*rel="next"$/.exec(String(header));
  assert.ok(m, `Link header is RFC 8288 with rel="next": ${String(header)}`);
  const url = new URL(m[1] as string);
  assert.equal(url.origin, new URL(baseUrl).origin, 'the next URL is on the public base URL');
  return url.pathname + url.search;
}

describe(`GET /api/payment-requests/ (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  async function list(query = '', tenant?: TenantWithKey) {
    const r = await t.call({ method: 'GET', url: `${BASE}${query}`, ...(tenant ? { tenant } : {}) });
    assert.equal(r.statusCode, 200, r.body);
    return { rows: r.json() as Detail[], link: r.headers.link };
  }

  /** Every page from `query` on, following Link rel="next"; asserts page sizes on the way. */
  async function allPages(query: string, limit: number, tenant?: TenantWithKey) {
    const pages: Detail[][] = [];
    let url: string | undefined = `${BASE}${query}`;
    while (url) {
      assert.ok(pages.length < 100, 'pagination ends');
      const r = await t.call({ method: 'GET', url, ...(tenant ? { tenant } : {}) });
      assert.equal(r.statusCode, 200, r.body);
      const rows = r.json() as Detail[];
      url = nextLink(r.headers.link, t.config.publicBaseUrl);
      if (url) assert.equal(rows.length, limit, 'a page with a next link is full');
      else assert.ok(rows.length <= limit);
      pages.push(rows);
    }
    return pages;
  }

  test('an empty tenant lists a bare empty array with no Link header', async () => {
    const fresh = await t.newTenant('Empty hotel');
    const r = await list('', fresh);
    assert.deepEqual(r.rows, []);
    assert.equal(r.link, undefined);
  });

  test('newest first; every item is a full detail without guest_phone or language', async () => {
    const tenant = await t.newTenant('Order hotel');
    const created: string[] = [];
    for (let i = 0; i < 8; i++) created.push((await createRequest(t, { reservation_ref: `ORD-${i}` }, tenant)).uuid);
    const { rows } = await list('', tenant);
    assert.equal(rows.length, 8);
    assert.deepEqual(new Set(rows.map((r) => r.uuid)), new Set(created));
    for (const [i, r] of rows.entries()) {
      assert.equal((r as unknown as Record<string, unknown>).guest_phone, undefined);
      assert.equal((r as unknown as Record<string, unknown>).language, undefined);
      assert.equal(Object.keys(r).length, 31);
      const next = rows[i + 1];
      if (!next) continue;
      const a = Date.parse(r.created_at);
      const b = Date.parse(next.created_at);
      assert.ok(a >= b, 'created_at never increases down the list');
      if (a > b) {
        // A strictly newer row was created later.
        assert.ok(created.indexOf(r.uuid) > created.indexOf(next.uuid), 'newest first');
      } else {
        // Same millisecond: a stable tie-break on the uuid, descending.
        assert.ok(r.uuid > next.uuid, 'ties ordered by uuid, descending');
      }
    }
  });

  test('keyset pagination: 25 rows, limit 10, following Link rel="next" gives 10, 10, 5 with no duplicate or gap', async () => {
    const tenant = await t.newTenant('Paging hotel');
    // Created concurrently: many share a created_at millisecond, which the cursor must survive.
    const created = await Promise.all(
      Array.from({ length: 25 }, (_, i) => createRequest(t, { reservation_ref: `PAGE-${i}` }, tenant)),
    );
    const pages = await allPages('?limit=10', 10, tenant);
    assert.deepEqual(
      pages.map((p) => p.length),
      [10, 10, 5],
    );
    const seen = pages.flat().map((r) => r.uuid);
    assert.equal(new Set(seen).size, 25, 'no duplicates');
    assert.deepEqual(new Set(seen), new Set(created.map((c) => c.uuid)), 'no gaps');
    // The pages concatenated are the single-page answer, in the same order.
    const whole = await list('?limit=25', tenant);
    assert.deepEqual(
      seen,
      whole.rows.map((r) => r.uuid),
    );
    assert.equal(whole.link, undefined, 'no next page after the last row');
  });

  test('pagination for every page size from 1 to 7 over 13 rows sees each row once, in order', async () => {
    const tenant = await t.newTenant('Sizes hotel');
    for (let i = 0; i < 13; i++) await createRequest(t, { reservation_ref: `SZ-${i}` }, tenant);
    const reference = (await list('', tenant)).rows.map((r) => r.uuid);
    for (let limit = 1; limit <= 7; limit++) {
      const seen = (await allPages(`?limit=${limit}`, limit, tenant)).flat().map((r) => r.uuid);
      assert.deepEqual(seen, reference, `limit ${limit}`);
    }
  });

  test('a row created while paging does not shift the later pages', async () => {
    const tenant = await t.newTenant('Busy paging hotel');
    for (let i = 0; i < 6; i++) await createRequest(t, { reservation_ref: `MOV-${i}` }, tenant);
    const first = await t.call({ method: 'GET', url: `${BASE}?limit=3`, tenant });
    const newcomer = await createRequest(t, { reservation_ref: 'MOV-new' }, tenant);
    const url = nextLink(first.headers.link, t.config.publicBaseUrl);
    assert.ok(url);
    const second = (await t.call({ method: 'GET', url, tenant })).json() as Detail[];
    const seen = [...(first.json() as Detail[]), ...second].map((r) => r.uuid);
    assert.equal(seen.length, 6);
    assert.equal(new Set(seen).size, 6);
    assert.ok(!seen.includes(newcomer.uuid));
  });

  test('limit defaults to 100 and accepts up to 1000', async () => {
    const tenant = await t.newTenant('Big hotel', { createRateLimit: 0 });
    for (let batch = 0; batch < 7; batch++) {
      await Promise.all(
        Array.from({ length: 15 }, (_, i) => createRequest(t, { reservation_ref: `BIG-${batch}-${i}` }, tenant)),
      );
    }
    const byDefault = await list('', tenant);
    assert.equal(byDefault.rows.length, 100);
    assert.ok(byDefault.link, 'a next page is announced');
    const rest = await t.call({
      method: 'GET',
      url: nextLink(byDefault.link, t.config.publicBaseUrl) as string,
      tenant,
    });
    assert.equal((rest.json() as Detail[]).length, 5);
    const max = await list('?limit=1000', tenant);
    assert.equal(max.rows.length, 105);
    assert.equal(max.link, undefined);
  });

  test('limit outside 1..1000 or not an integer is a 422 naming limit', async () => {
    for (const limit of ['1001', '0', '-1', '2.5', 'ten', '']) {
      const r = await t.call({ method: 'GET', url: `${BASE}?limit=${limit}` });
      assert.equal(r.statusCode, 422, `limit=${limit}`);
      assert.equal(r.json().error, 'Validation failed');
      assert.ok(
        (r.json().details as { field: string }[]).some((d) => d.field === 'limit'),
        JSON.stringify(r.json()),
      );
    }
  });

  test('filters: status, request_type, reservation_ref, each alone and combined, and carried into the next link', async () => {
    const tenant = await t.newTenant('Filter hotel');
    const mk = (o: Record<string, unknown>) => createRequest(t, o, tenant);
    const a = await mk({ request_type: 'DEPOSIT', amount: 10, reservation_ref: 'F-A' });
    const b = await mk({ request_type: 'IMPRINT', reservation_ref: 'F-A' });
    const c = await mk({ request_type: 'DEPOSIT', amount: 20, reservation_ref: 'F-B' });
    const d = await mk({ request_type: 'IMPRINT', reservation_ref: 'F-B' });
    const e = await mk({ request_type: 'DEPOSIT', amount: 30, reservation_ref: 'F-C' });
    await arrangeStatus(t.db, c.uuid, 'CAPTURED', { amountCaptured: 2000 });
    await arrangeStatus(t.db, d.uuid, 'AUTHORISED');
    await arrangeStatus(t.db, e.uuid, 'CAPTURED', { amountCaptured: 3000 });

    const uuids = async (q: string) => new Set((await list(q, tenant)).rows.map((r) => r.uuid));
    assert.deepEqual(await uuids('?status=CAPTURED'), new Set([c.uuid, e.uuid]));
    assert.deepEqual(await uuids('?status=NOT_INITIATED'), new Set([a.uuid, b.uuid]));
    assert.deepEqual(await uuids('?status=REFUNDED'), new Set());
    assert.deepEqual(await uuids('?request_type=IMPRINT'), new Set([b.uuid, d.uuid]));
    assert.deepEqual(await uuids('?reservation_ref=F-A'), new Set([a.uuid, b.uuid]));
    assert.deepEqual(await uuids('?reservation_ref=F-nope'), new Set());
    assert.deepEqual(await uuids('?request_type=DEPOSIT&status=CAPTURED&reservation_ref=F-C'), new Set([e.uuid]));

    const pages = await allPages('?request_type=DEPOSIT&limit=1', 1, tenant);
    assert.deepEqual(new Set(pages.flat().map((r) => r.uuid)), new Set([a.uuid, c.uuid, e.uuid]));
    assert.ok(pages.flat().every((r) => r.request_type === 'DEPOSIT'));
  });

  test('created_after is inclusive and created_before exclusive, on the created_at the API shows', async () => {
    const tenant = await t.newTenant('Dates hotel');
    for (let i = 0; i < 5; i++) await createRequest(t, { reservation_ref: `D-${i}` }, tenant);
    const all = (await list('', tenant)).rows;
    const pivot = all[2] as Detail;
    const at = encodeURIComponent(pivot.created_at);
    const after = (await list(`?created_after=${at}`, tenant)).rows;
    const before = (await list(`?created_before=${at}`, tenant)).rows;
    assert.ok(
      after.some((r) => r.uuid === pivot.uuid),
      'inclusive',
    );
    assert.ok(!before.some((r) => r.uuid === pivot.uuid), 'exclusive');
    assert.ok(after.every((r) => Date.parse(r.created_at) >= Date.parse(pivot.created_at)));
    assert.ok(before.every((r) => Date.parse(r.created_at) < Date.parse(pivot.created_at)));
    assert.equal(after.length + before.length, all.length, 'the two ranges split the list');
    // A window with both bounds, and an offset timestamp.
    const past = encodeURIComponent('2000-01-01T00:00:00+02:00');
    const future = encodeURIComponent('2999-01-01T00:00:00Z');
    assert.equal((await list(`?created_after=${past}&created_before=${future}`, tenant)).rows.length, 5);
    assert.equal((await list(`?created_after=${future}`, tenant)).rows.length, 0);
  });

  test('an unknown status or request_type, a bad date or an unstorable reservation_ref is a 422 naming the field', async () => {
    for (const [q, field] of [
      ['?status=PAID', 'status'],
      ['?status=captured', 'status'],
      ['?request_type=REFUND', 'request_type'],
      ['?created_after=yesterday', 'created_after'],
      ['?created_before=2026-02-30T00:00:00Z', 'created_before'],
      ['?reservation_ref=a%00b', 'reservation_ref'],
      [`?reservation_ref=${'R'.repeat(101)}`, 'reservation_ref'],
    ] as const) {
      const r = await t.call({ method: 'GET', url: `${BASE}${q}` });
      assert.equal(r.statusCode, 422, q);
      assert.ok(
        (r.json().details as { field: string }[]).some((d) => d.field === field),
        `${q}: ${r.body}`,
      );
    }
  });

  test('a forged or corrupt cursor is a 400, never a 500', async () => {
    const forged = [
      'garbage',
      Buffer.from('not-a-date|6f1c2a52-7d3e-4a41-9a55-0c8f5b0e2d11').toString('base64url'),
      Buffer.from('2026-01-01T00:00:00.000Z|not-a-uuid').toString('base64url'),
      Buffer.from('2026-01-01T00:00:00.000Z').toString('base64url'),
      Buffer.from("2026-01-01T00:00:00.000Z|'; DROP TABLE payment_requests; --").toString('base64url'),
    ];
    for (const cursor of forged) {
      const r = await t.call({ method: 'GET', url: `${BASE}?cursor=${encodeURIComponent(cursor)}` });
      assert.equal(r.statusCode, 400, cursor);
      assert.equal(r.json().error, 'Invalid pagination cursor');
    }
    // A well-formed cursor from the far past simply lists nothing.
    const old = Buffer.from('2000-01-01T00:00:00.000Z|6f1c2a52-7d3e-4a41-9a55-0c8f5b0e2d11').toString('base64url');
    const r = await t.call({ method: 'GET', url: `${BASE}?cursor=${old}` });
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.json(), []);
  });

  test('every response carried x-request-id and none was a 5xx', () => auditResponses(t));
});
