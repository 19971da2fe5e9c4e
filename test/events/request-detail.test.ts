import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { expandGenerated, generatedHash, namedGenerators, type PaymentRequestRow } from '../../src/db/index.ts';
import { presentRequestDetail, requestDetailFunctionSql } from '../../src/events/index.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

const MIGRATIONS = fileURLToPath(new URL('../../src/db/migrations/', import.meta.url));

describe('the request detail is defined once', () => {
  test('the newest migration that defines payment_request_detail names the text the definition writes', async () => {
    const files = (await readdir(MIGRATIONS)).filter((f) => f.endsWith('.sql')).sort();
    let newest: { file: string; text: string } | undefined;
    for (const file of files) {
      const text = await readFile(MIGRATIONS + file, 'utf8');
      const names = namedGenerators(text).some((g) => g.name === 'payment_request_detail');
      if (names || text.includes('FUNCTION payment_request_detail(')) newest = { file, text };
    }
    assert.ok(newest, 'no migration defines payment_request_detail');
    const now = generatedHash(requestDetailFunctionSql());
    const named = namedGenerators(newest.text).find((g) => g.name === 'payment_request_detail');
    assert.ok(
      named ? named.hash === now : newest.text.includes(requestDetailFunctionSql()),
      `${newest.file} does not define the function src/events/request-detail.ts writes: add a migration with the line\n-- payreq:generated payment_request_detail sha256=${now}`,
    );
  });

  test('the migrator writes the generated text for the newest migration naming it, skips older ones, refuses a stale hash', () => {
    const now = generatedHash(requestDetailFunctionSql());
    const line = (hash: string) => `-- payreq:generated payment_request_detail sha256=${hash}`;
    const newest = new Map([['payment_request_detail', '0099_new.sql']]);
    assert.equal(
      expandGenerated('0099_new.sql', `SELECT 1;\n${line(now)}\n`, newest),
      `SELECT 1;\n${requestDetailFunctionSql()}\n`,
    );
    // An older migration naming it is skipped: the newer one defines it.
    assert.equal(
      expandGenerated('0050_old.sql', line('0123456789abcdef'), newest),
      '-- payment_request_detail: defined by 0099_new.sql',
    );
    // Written for another text: refused, naming the hash to write.
    assert.throws(
      () => expandGenerated('0099_new.sql', line('0123456789abcdef'), newest),
      new RegExp(`changed since this migration was written.*sha256=${now}`),
    );
    assert.throws(
      () => expandGenerated('0099_new.sql', '-- payreq:generated no_such_thing sha256=0123456789abcdef', newest),
      /no SQL generator is named no_such_thing/,
    );
  });
});

describe(`payment_request_detail(p) in SQL answers what the API presents (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test('for open and closed requests, with and without a hold date and a card', async () => {
    const a = await createRequest(t, { reservation_ref: 'RD-1' });
    const b = await createRequest(t, { reservation_ref: 'RD-2', request_type: 'DEPOSIT', amount: 123.45 });
    await t.db.query(
      `UPDATE payment_requests
          SET status = 'CAPTURED', amount_captured = amount, masked_pan = '497010XXXXXX0055',
              card_expiry_month = 12, card_expiry_year = 2031, hold_expires_at = now() + interval '3 days 0.123456 seconds'
        WHERE id = $1`,
      [b.uuid],
    );
    for (const id of [a.uuid, b.uuid]) {
      const r = await t.db.query<PaymentRequestRow & { detail: unknown }>(
        'SELECT p.*, payment_request_detail(p) AS detail FROM payment_requests p WHERE p.id = $1',
        [id],
      );
      const row = r.rows[0];
      assert.ok(row);
      const { detail, ...fields } = row;
      assert.deepEqual(detail, JSON.parse(JSON.stringify(presentRequestDetail(fields))));
    }
  });
});

describe(`the API's detail, written as JSON by the database, is the presenter's (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  /** The row as the presenter reads it, and the API's answer for it, as text. */
  async function both(id: string) {
    const row = await t.repos.paymentRequests.find(t.tenant.tenantId, id);
    assert.ok(row);
    const res = await t.call({ method: 'GET', url: `/api/payment-requests/${id}/` });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^application\/json; charset=utf-8$/);
    return { presented: JSON.stringify(presentRequestDetail(row)), answered: res.body };
  }

  // Every kind of field with a value, the strings with what JSON escapes or may not: quotes,
  // backslashes, control characters, line and paragraph separators, letters past Latin-1.
  const awkward = 'Zoë "Ô" \\ back\tslash\nline\u0001\u001f\u2028\u2029 🙂 </script>';
  async function fillEveryField(id: string, other: string) {
    await t.db.query(
      `UPDATE payment_requests
          SET status = 'REFUNDED', amount = 100000000, amount_captured = 12345, amount_refunded = 1,
              guest_first_name = $2, guest_last_name = $2, guest_email = $2, reservation_ref = $2,
              masked_pan = '497010XXXXXX0055', card_expiry_month = 12, card_expiry_year = 2031,
              hold_expires_at = '2026-12-01T10:11:12.987654Z', released_at = '2026-12-02T00:00:00.0005Z',
              guarantee_failed_at = '1999-12-31T23:59:59.999999Z', guarantee_failures = 3,
              hold_decline_reason = 'insufficient_funds', hold_decline_code = $2,
              capture_reason = 'no_show', capture_note = $2, refund_reason = 'other', refund_note = $2,
              decline_reason = 'other', decline_code = $2, replaces = $3, email_sent = true
        WHERE id = $1`,
      [id, awkward, other],
    );
  }

  test('byte for byte, for a new request and for one with every field set', async () => {
    const a = await createRequest(t, { reservation_ref: 'DJ-1', reservation_data: {} });
    const b = await createRequest(t, {
      reservation_ref: 'DJ-2',
      request_type: 'DEPOSIT',
      amount: 0.01,
      reservation_data: {},
    });
    await fillEveryField(b.uuid, a.uuid);
    for (const id of [a.uuid, b.uuid]) {
      const { presented, answered } = await both(id);
      assert.equal(answered, presented);
    }
    const c = await createRequest(t, { reservation_ref: 'DJ-3', amount: 123.45, reservation_data: {} });
    await t.db.query("UPDATE payment_requests SET amount_captured = 12345, status = 'CAPTURED' WHERE id = $1", [
      c.uuid,
    ]);
    const { presented, answered } = await both(c.uuid);
    assert.equal(answered, presented);
  });

  test("the reservation's data: the same JSON, keys in the same order, spaced as the database keeps it", async () => {
    const data = { checkin: '2026-12-24', nights: 3, rate: 1.5, guests: [{ name: awkward, child: false }], note: null };
    const d = await createRequest(t, { reservation_ref: 'DJ-4', reservation_data: data });
    const { presented, answered } = await both(d.uuid);
    assert.deepEqual(JSON.parse(answered), JSON.parse(presented));
    assert.deepEqual(Object.keys(JSON.parse(answered)), Object.keys(JSON.parse(presented)));
    assert.deepEqual(
      Object.keys(JSON.parse(answered).reservation_data),
      Object.keys(JSON.parse(presented).reservation_data),
    );
  });

  test("another tenant's request, or none: 404, as before", async () => {
    const mine = await createRequest(t, { reservation_ref: 'DJ-5' });
    const other = await t.newTenant('Hôtel voisin');
    const res = await t.call({ method: 'GET', url: `/api/payment-requests/${mine.uuid}/`, tenant: other });
    assert.equal(res.statusCode, 404, res.body);
    assert.equal(res.json().code, 'not_found');
    const none = await t.call({ method: 'GET', url: `/api/payment-requests/${randomUUID()}/` });
    assert.equal(none.statusCode, 404, none.body);
    assert.equal(none.json().code, 'not_found');
    const bad = await t.call({ method: 'GET', url: '/api/payment-requests/not-a-uuid/' });
    assert.equal(bad.statusCode, 404, bad.body);
  });
});
