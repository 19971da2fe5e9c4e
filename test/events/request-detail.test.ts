import assert from 'node:assert/strict';
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
