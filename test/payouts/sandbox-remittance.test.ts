import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { runCommand } from '../../src/cli/index.ts';
import { localDate } from '../../src/domain/index.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { checkoutForm, submitCard } from '../helpers/sandbox-checkout.ts';
import { createRequest, ENGINE, type TenantWithKey } from '../helpers/test-app.ts';

async function paidDeposit(t: ListeningApp, amount: number, tenant: TenantWithKey): Promise<string> {
  const c = await createRequest(t, { request_type: 'DEPOSIT', amount }, tenant);
  assert.equal((await submitCard(await checkoutForm(t, c.uuid), { number: '4242424242424242' })).status, 303);
  return c.uuid;
}

// The sandbox remits too: a day's captures and refunds of a hotel are one remittance, with a
// fee of 1.4 % + 0.25 a debit, downloadable in Lyra's layout; the same importer takes it.
describe(`the sandbox's remittance report, imported end to end (${ENGINE})`, { timeout: 120_000 }, () => {
  let t: ListeningApp;
  let hotel: TenantWithKey;
  let other: TenantWithKey;
  let today: string;
  before(async () => {
    t = await startListeningApp();
    hotel = await t.newTenant('Hôtel; du "Lac"');
    other = await t.newTenant('Hotel Other');
    today = localDate('Europe/Paris', new Date());
  });
  after(async () => {
    await t.close();
  });

  /** The report as the hotel asks for it: with its own API key. */
  const report = (who: TenantWithKey, date: string, tenant = who.tenantId) =>
    fetch(`${t.baseUrl}/sandbox/reports/jrb?tenant=${tenant}&date=${date}`, { headers: who.headers });
  /** `payreq settlements import` as the running service runs it, the file's bytes sent with it. */
  const importFile = async (tenant: string, bytes: Buffer) => {
    const ctx = { config: t.config, db: t.db, repos: t.repos };
    const r = await runCommand(
      ['settlements', 'import', '--tenant', tenant, 'report.csv', '--json'],
      ctx,
      undefined,
      undefined,
      bytes,
    );
    assert.equal(r.exitCode, 0, r.stderr);
    return JSON.parse(r.stdout) as Record<string, number>;
  };
  const list = async (tenant: string) => {
    const r = await runCommand(['settlements', 'list', '--tenant', tenant, '--json'], {
      config: t.config,
      db: t.db,
      repos: t.repos,
    });
    assert.equal(r.exitCode, 0, r.stderr);
    return (JSON.parse(r.stdout) as { remittances: Record<string, number | string>[] }).remittances;
  };

  test('two deposits and part of one refunded, plus an unknown order: one remittance, four lines, three matched', async () => {
    const first = await paidDeposit(t, 120, hotel);
    const second = await paidDeposit(t, 80.5, hotel);
    const refund = await t.call({
      method: 'POST',
      url: `/api/payment-requests/${first}/refund/`,
      payload: { amount: 30 },
      tenant: hotel,
    });
    assert.equal(refund.statusCode, 200, refund.body);

    const r = await report(hotel, today);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^text\/csv; charset=utf-8/);
    assert.match(r.headers.get('content-disposition') ?? '', /attachment; filename="sandbox_JRB_V2_\d{8}\.csv"/);
    const text = await r.text();
    const records = text.split('\r\n').filter((l) => l !== '');
    assert.match(records[0] ?? '', /^TITRE;Hôtel {2}du "Lac";\d\d\/\d\d\/\d\d_\d\d:\d\d:\d\d;TABLE_V2$/);
    assert.match(records[1] ?? '', /^ENTETE;MERCHANT_COUNTRY;.*;TRANSACTION_ID;.*;ORDER_ID;.*;REMITTANCE_NB;/);
    const matching = records.filter((l) => l.startsWith('MATCHING;'));
    assert.equal(matching.length, 3);
    assert.equal(records.at(-1), 'FIN;3');
    const labels = (records[1] ?? '').split(';');
    const rows = matching.map((l) => {
      const f = l.split(';');
      return Object.fromEntries(labels.map((label, i) => [label, f[i]]));
    });
    const day = today.replaceAll('-', '');
    assert.deepEqual(
      rows.map((x) => [
        x.ORDER_ID,
        x.OPERATION_TYPE,
        x.BRUT_AMOUNT,
        x.COMMISSION_AMOUNT,
        x.NET_AMOUNT,
        x.CURRENCY_CODE,
      ]),
      [
        [first, 'DT', '12000', '193', '11807', '978'],
        [second, 'DT', '8050', '138', '7912', '978'],
        [first, 'CT', '3000', '0', '3000', '978'],
      ],
      'a fee of 1.4 % + 0.25 a debit; none on a refund',
    );
    assert.ok(
      rows.every((x) => x.REMITTANCE_NB === day && x.REMITTANCE_DATE === day && /^\d{6}$/.test(x.TRANSACTION_ID ?? '')),
    );

    // A line for an order payreq does not know, as the provider's back office would add one.
    const unknown = `MATCHING;${labels
      .slice(1)
      .map((label) => ({ ...rows[0], ORDER_ID: randomUUID(), TRANSACTION_ID: '912345' })[label] ?? '')
      .join(';')}`;
    const file = Buffer.from(`${records.slice(0, -1).join('\r\n')}\r\n${unknown}\r\nFIN;4\r\n`);

    const counts = { remittances: 1, lines: 4, matched: 3, unmatched: 1 };
    assert.deepEqual(await importFile(hotel.tenantId, file), { ...counts, changed: 4 });
    assert.deepEqual(
      await importFile(hotel.tenantId, file),
      { ...counts, changed: 0 },
      'imported again: the same file, nothing new',
    );
    const listed = await list(hotel.tenantId);
    assert.equal(listed.length, 1, 'still one remittance');
    const remittance = listed[0] as {
      lines: number;
      matched: number;
      unmatched: number;
      gross: number;
      fees: number;
      net: number;
    };
    assert.equal(remittance.lines, 4, 'of four lines');
    assert.equal(remittance.matched, 3);
    assert.equal(remittance.unmatched, 1);
    assert.equal(remittance.gross, 120 + 80.5 - 30 + 120);
    assert.equal(remittance.fees, 5.24, '1.93 + 1.38 + 1.93');
    assert.equal(
      Math.round((remittance.gross - remittance.fees) * 100),
      Math.round(remittance.net * 100),
      'gross - fees = net',
    );

    // Another hotel sees nothing of it; its own day at the sandbox is empty.
    assert.deepEqual(await list(other.tenantId), []);
    const theirs = await (await report(other, today)).text();
    assert.equal(theirs.split('\r\n').filter((l) => l.startsWith('MATCHING;')).length, 0);
    assert.match(theirs, /\r\nFIN;0\r\n$/);
    assert.deepEqual(await importFile(other.tenantId, Buffer.from(theirs)), {
      remittances: 0,
      lines: 0,
      matched: 0,
      unmatched: 0,
      changed: 0,
    });
  });

  test("a hold captured that day is a debit of what was captured, under the hold's number", async () => {
    const third = await t.newTenant('Hôtel des Empreintes');
    const imprint = await createRequest(t, { request_type: 'IMPRINT', amount: 150 }, third);
    await arrangeStatus(t.db, imprint.uuid, 'AUTHORISED_TO_VALIDATE');
    const capture = await t.call({
      method: 'POST',
      url: `/api/payment-requests/${imprint.uuid}/capture/`,
      payload: { amount: 95 },
      tenant: third,
    });
    assert.equal(capture.statusCode, 200, capture.body);
    const text = await (await report(third, today)).text();
    const line = text.split('\r\n').find((l) => l.startsWith('MATCHING;'));
    assert.ok(line?.includes(`;${imprint.uuid};`), text);
    assert.ok(line?.includes(';DT;1;'), line);
    assert.ok(line?.includes(';9500;MATCH_OK;'), line);
    assert.deepEqual(await importFile(third.tenantId, Buffer.from(text)), {
      remittances: 1,
      lines: 1,
      matched: 1,
      unmatched: 0,
      changed: 1,
    });
  });

  test('a bad query is a 400, an unknown hotel a 404, another day an empty report', async () => {
    for (const q of [
      '',
      `tenant=${hotel.tenantId}`,
      `tenant=nope&date=${today}`,
      `tenant=${hotel.tenantId}&date=2026-02-30`,
    ]) {
      const r = await fetch(`${t.baseUrl}/sandbox/reports/jrb?${q}`, { headers: hotel.headers });
      assert.equal(r.status, 400, q);
      assert.equal((await r.json()).code, 'invalid_query');
    }
    const missing = await report(hotel, today, randomUUID());
    assert.equal(missing.status, 404);
    assert.equal((await missing.json()).code, 'tenant_not_found');
    const empty = await (await report(hotel, '2020-01-01')).text();
    assert.match(empty, /^TITRE;.*\r\nENTETE;.*\r\nFIN;0\r\n$/);
  });

  // Issue 47: the report named a hotel's orders to anyone who knew its tenant id, and an order id
  // opens the guest's pages. It answers the hotel's own key only, in development too.
  test("without the hotel's key: 401, and another hotel's key is told no such tenant", async () => {
    await paidDeposit(t, 12, hotel);
    const open = await fetch(`${t.baseUrl}/sandbox/reports/jrb?tenant=${hotel.tenantId}&date=${today}`);
    assert.equal(open.status, 401);
    assert.equal((await open.json()).code, 'unauthorized');
    const wrongKey = await fetch(`${t.baseUrl}/sandbox/reports/jrb?tenant=${hotel.tenantId}&date=${today}`, {
      headers: { 'x-api-key': 'pk_nope.nope' },
    });
    assert.equal(wrongKey.status, 401);
    const theirs = await report(other, today, hotel.tenantId);
    assert.equal(theirs.status, 404);
    const body = await theirs.text();
    assert.equal(JSON.parse(body).code, 'tenant_not_found');
    assert.doesNotMatch(body, /MATCHING/);
    // Without `tenant`, the key's own hotel.
    const own = await (
      await fetch(`${t.baseUrl}/sandbox/reports/jrb?date=${today}`, { headers: hotel.headers })
    ).text();
    assert.match(own, /^TITRE;Hôtel {2}du "Lac";/);
  });
});
