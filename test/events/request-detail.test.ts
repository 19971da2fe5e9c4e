import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { PaymentRequestRow } from '../../src/db/index.js';
import { presentRequestDetail, requestDetailFunctionSql } from '../../src/events/index.js';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.js';

const MIGRATIONS = fileURLToPath(new URL('../../src/db/migrations/', import.meta.url));

describe('the request detail is defined once', () => {
  test('the newest migration that defines payment_request_detail holds the function the definition writes', async () => {
    const files = (await readdir(MIGRATIONS)).filter((f) => f.endsWith('.sql')).sort();
    let newest: string | undefined;
    for (const f of files) {
      if ((await readFile(MIGRATIONS + f, 'utf8')).includes('FUNCTION payment_request_detail(')) newest = f;
    }
    assert.ok(newest, 'no migration defines payment_request_detail');
    const text = await readFile(MIGRATIONS + newest, 'utf8');
    assert.ok(
      text.includes(requestDetailFunctionSql()),
      `${newest} does not hold the function src/events/request-detail.ts writes: add a migration with\n${requestDetailFunctionSql()}`,
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
