import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { ControlClient, createUser, withoutLabels } from './control-client.ts';

describe(`the audit reads as a hotel would (${ENGINE})`, { timeout: 120_000 }, () => {
  let t: TestApp;
  let c: ControlClient;
  before(async () => {
    t = await startTestApp();
    await createUser(t, 'auditor', t.tenant.tenantId);
    c = await new ControlClient(t, '10.6.0.7').signedIn('auditor');
  });
  after(() => t.close());

  /** Detail page → confirmation → POST, as a user clicks through. */
  async function act(id: string, action: string, amount = '') {
    const confirm = await c.get(`/control/requests/${id}/confirm?action=${action}&amount=${amount}`);
    const fields: Record<string, string> = {};
    for (const m of confirm.body.matchAll(/<input type="hidden" name="(amount|nonce)" value="([^"]*)">/g)) {
      fields[m[1] as string] = m[2] as string;
    }
    assert.equal((await c.post(`/control/requests/${id}/${action}`, fields)).statusCode, 303);
  }
  const rows = (body: string) =>
    [
      ...withoutLabels(body).matchAll(
        /<tr><td>([^<]*)<\/td><td>([^<]*)<\/td>\s*<td>([^<]*)<\/td><td>([\s\S]*?)<\/td>\s*<td><span[^>]*>([^<]*)<\/span><\/td><td>([^<]*)<\/td><td>([\s\S]*?)<\/td><\/tr>/g,
      ),
    ].map((m) => ({
      action: m[3],
      target: (m[4] ?? '').replace(/<[^>]+>/g, ''),
      outcome: m[5],
      ip: m[6],
      detail: (m[7] ?? '').replace(/<br>/g, ' | '),
    }));

  test('money as money, the request by its reference, actions and outcomes in words, the address kept', async () => {
    const r = await createRequest(t, { request_type: 'IMPRINT', amount: 200 });
    await arrangeStatus(t.db, r.uuid, 'AUTHORISED_TO_VALIDATE');
    await act(r.uuid, 'capture', '150');
    await act(r.uuid, 'refund');
    const page = await c.get(`/control/audit?reference=${r.reference}`);
    const seen = rows(page.body);
    assert.deepEqual(seen, [
      { action: 'Refund', target: r.reference, outcome: 'Done', ip: '10.6.0.7', detail: 'Amount: €150.00' },
      { action: 'Capture', target: r.reference, outcome: 'Done', ip: '10.6.0.7', detail: 'Amount: €150.00' },
    ]);
  });

  test('a date range, in the hotel’s days', async () => {
    await t.repos.audit.record({
      username: 'auditor',
      tenantId: t.tenant.tenantId,
      ip: '10.6.0.8',
      action: 'logo_changed',
      outcome: 'ok',
    });
    // 23:30 UTC on the 24th is already the 25th in Paris.
    await t.db.query("UPDATE admin_audit SET at = '2026-11-24T23:30:00Z' WHERE ip = '10.6.0.8'");
    const on25 = await c.get('/control/audit?from=2026-11-25&to=2026-11-25&action=logo_changed');
    assert.equal(rows(on25.body).length, 1, 'the 25th in Paris holds it');
    const on24 = await c.get('/control/audit?from=2026-11-24&to=2026-11-24&action=logo_changed');
    assert.equal(rows(on24.body).length, 0);
    assert.match(on25.body, /<option value="logo_changed" selected>Logo changed<\/option>/);
  });
});
