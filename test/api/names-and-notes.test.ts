import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { createBody, createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

const BASE = '/api/payment-requests/';

/**
 * A guest's name is one line: CR, LF and every other control character refused at the API
 * (422, naming the field), nothing stored. A note beside a money move keeps tab and line
 * breaks as text and refuses other control characters, as the back office's forms do.
 */
describe(`names on one line, notes without control characters (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test('a name with CR, LF, a tab, ESC or a C1 control: 422 plain_text, nothing created', async () => {
    const count = async () =>
      (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM payment_requests')).rows[0]?.n;
    const before = await count();
    for (const field of ['guest_first_name', 'guest_last_name']) {
      for (const name of ['Jeanne\r\nBcc: x', 'Jeanne\nMartin', 'Jeanne\rM', 'Jean\tne', 'Je\u001b[31m', 'Je\u0085x']) {
        const r = await t.call({ method: 'POST', url: BASE, payload: createBody({ [field]: name }) });
        assert.equal(r.statusCode, 422, `${field}=${JSON.stringify(name)}: ${r.body}`);
        const issue = (r.json().details as { field: string; code: string; message: string }[]).find(
          (d) => d.field === field,
        );
        assert.equal(issue?.code, 'plain_text', r.body);
        assert.match(issue?.message ?? '', /must be one line/);
      }
    }
    assert.equal(await count(), before);
    const ok = await t.call({
      method: 'POST',
      url: BASE,
      payload: createBody({ guest_last_name: "O'Brien-Müller Jr." }),
    });
    assert.equal(ok.statusCode, 201, ok.body);
  });

  test('a capture note: line breaks kept, other control characters refused and nothing moved', async () => {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount: 100 });
    await arrangeStatus(t.db, c.uuid, 'AUTHORISED_TO_VALIDATE');
    for (const note of ['broken\u0000', 'esc \u001b[2J', 'bell\u0007', 'c1 \u009b']) {
      const r = await t.call({ method: 'POST', url: `${BASE}${c.uuid}/capture/`, payload: { amount: 10, note } });
      assert.equal(r.statusCode, 422, `${JSON.stringify(note)}: ${r.body}`);
      assert.match(r.body, /must not contain control characters/);
    }
    const moved = await t.db.query(`SELECT 1 FROM money_ledger WHERE payment_request_id = $1 AND kind = 'capture'`, [
      c.uuid,
    ]);
    assert.equal(moved.rowCount, 0);
    const r = await t.call({
      method: 'POST',
      url: `${BASE}${c.uuid}/capture/`,
      payload: { amount: 10, reason: 'damage', note: 'Lamp broken\r\n\tand the mirror' },
    });
    assert.equal(r.statusCode, 200, r.body);
  });
});
