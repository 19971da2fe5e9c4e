import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { importJrb, JrbRefused, remittancesRepository } from '../../src/payouts/index.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { checkoutForm, submitCard } from '../helpers/sandbox-checkout.ts';
import { createRequest, ENGINE, type TenantWithKey } from '../helpers/test-app.ts';
import { jrb, jrbText, type Operation } from './jrb-file.ts';

/** The ledger's number of a request's succeeded movement of `kind`. */
async function numberOf(t: ListeningApp, id: string, kind: string): Promise<string> {
  const r = await t.db.query<{ legacy_trans_id: string }>(
    `SELECT legacy_trans_id FROM money_ledger WHERE payment_request_id = $1 AND kind = $2 AND state = 'succeeded'
      ORDER BY id DESC LIMIT 1`,
    [id, kind],
  );
  const n = r.rows[0]?.legacy_trans_id;
  assert.ok(n, `${kind} of ${id} has a number`);
  return n;
}

async function stored(t: ListeningApp) {
  const r = await t.db.query<{ remittances: number; lines: number }>(
    `SELECT (SELECT count(*) FROM remittances)::int AS remittances, (SELECT count(*) FROM remittance_lines)::int AS lines`,
  );
  return r.rows[0];
}

/** A deposit of `amount` paid by the guest on the sandbox. */
async function paidDeposit(t: ListeningApp, amount: number, tenant: TenantWithKey) {
  const c = await createRequest(t, { request_type: 'DEPOSIT', amount }, tenant);
  assert.equal((await submitCard(await checkoutForm(t, c.uuid), { number: '4242424242424242' })).status, 303);
  return c.uuid;
}

// A hotel's remittance file matched line by line against what payreq moved: by order and
// transaction number, on direction and amount; the same or an overlapping file again changes
// nothing; a malformed one stores nothing; another hotel sees nothing of it.
describe(`importing a bank reconciliation report (${ENGINE})`, { timeout: 120_000 }, () => {
  let t: ListeningApp;
  let hotel: TenantWithKey;
  let first: string;
  let second: string;
  let ops: Operation[];
  const target = () => ({ tenantId: hotel.tenantId, provider: 'sandbox' });
  const deps = () => ({ db: t.db, repos: t.repos });
  before(async () => {
    t = await startListeningApp();
    hotel = await t.newTenant('Hôtel des Remises');
    first = await paidDeposit(t, 120, hotel);
    second = await paidDeposit(t, 80.5, hotel);
    const refund = await t.call({
      method: 'POST',
      url: `/api/payment-requests/${first}/refund/`,
      payload: { amount: 30 },
      tenant: hotel,
    });
    assert.equal(refund.statusCode, 200, refund.body);
    ops = [
      {
        orderId: first,
        transactionId: await numberOf(t, first, 'payment'),
        type: 'DT',
        amount: 12_000,
        commission: 193,
      },
      {
        orderId: second,
        transactionId: await numberOf(t, second, 'payment'),
        type: 'DT',
        amount: 8_050,
        commission: 138,
      },
      { orderId: first, transactionId: await numberOf(t, first, 'refund'), type: 'CT', amount: 3_000, commission: 0 },
      // An order payreq does not know (a payment taken in the provider's back office).
      { orderId: 'BO-20261120-7', transactionId: '700001', type: 'DT', amount: 5_000, commission: 95 },
    ];
  });
  after(async () => {
    await t.close();
  });

  test('two deposits, a partial refund, an unknown order: one remittance, four lines, three matched', async () => {
    const result = await importJrb(deps(), target(), [jrb(ops)]);
    assert.deepEqual(result, { remittances: 1, lines: 4, matched: 3, unmatched: 1, changed: 4 });
    const [remittance, ...others] = await remittancesRepository(t.db).list(hotel.tenantId);
    assert.equal(others.length, 0);
    assert.ok(remittance);
    assert.deepEqual(
      {
        nb: remittance.remittance_nb,
        date: remittance.remittance_date,
        currency: remittance.currency,
        gross: remittance.gross,
        fees: remittance.fees,
        net: remittance.net,
        lines: remittance.line_count,
        matched: remittance.matched_count,
        shop: remittance.shop,
      },
      {
        nb: '000042',
        date: '2026-11-21',
        currency: 'EUR',
        gross: 12_000 + 8_050 - 3_000 + 5_000,
        fees: 193 + 138 + 95,
        net: 12_000 + 8_050 - 3_000 + 5_000 - (193 + 138 + 95),
        lines: 4,
        matched: 3,
        shop: 'HOTEL DES TESTS',
      },
    );
    const lines = await remittancesRepository(t.db).lines(remittance.id);
    assert.equal(lines[0]?.order_id, 'BO-20261120-7', 'the unmatched line first');
    assert.equal(lines[0]?.unmatched_reason, 'unknown_order');
    assert.deepEqual(
      lines.slice(1).map((l) => [l.payment_request_id, l.ledger_kind, l.direction]),
      [
        [first, 'payment', 'debit'],
        [second, 'payment', 'debit'],
        [first, 'refund', 'credit'],
      ],
    );
  });

  test('the same file again, or one overlapping it: nothing changes but the new line', async () => {
    const before = await stored(t);
    assert.deepEqual(await importJrb(deps(), target(), [jrb(ops, { eol: '\n', encoding: 'latin1' })]), {
      remittances: 1,
      lines: 4,
      matched: 3,
      unmatched: 1,
      changed: 0,
    });
    assert.deepEqual(await stored(t), before, 'imported twice: still one remittance of four lines');
    const next = { orderId: randomUUID(), transactionId: '700002', type: 'DT' as const, amount: 1_000, commission: 39 };
    const overlapping = [...ops.slice(1), next, { ...next, remittanceNb: '000043', remittanceDate: '20261122' }];
    assert.deepEqual(await importJrb(deps(), target(), [jrb(overlapping, { version: 'TABLE_V1' })]), {
      remittances: 2,
      lines: 5,
      matched: 2,
      unmatched: 3,
      changed: 2,
    });
    const after = await remittancesRepository(t.db).list(hotel.tenantId);
    assert.deepEqual(
      after.map((r) => [r.remittance_nb, r.line_count, r.matched_count, r.gross - r.fees === r.net]),
      [
        ['000043', 1, 0, true],
        ['000042', 5, 3, true],
      ],
    );
  });

  test('what differs from the books says why: amount, direction, transaction', async () => {
    const [payment, other, refund] = ops as [Operation, Operation, Operation];
    const wrong: Operation[] = [
      { ...payment, amount: 11_000, commission: 0, remittanceNb: '000050' },
      { ...refund, type: 'DT', remittanceNb: '000050' },
      { ...other, transactionId: '999999', remittanceNb: '000050' },
    ];
    assert.deepEqual(await importJrb(deps(), target(), [jrb(wrong)]), {
      remittances: 1,
      lines: 3,
      matched: 0,
      unmatched: 3,
      changed: 3,
    });
    const [remittance] = await remittancesRepository(t.db).list(hotel.tenantId, {
      from: '2026-11-21',
      to: '2026-11-21',
    });
    const found = (await remittancesRepository(t.db).list(hotel.tenantId)).find((r) => r.remittance_nb === '000050');
    assert.ok(found && remittance);
    const lines = await remittancesRepository(t.db).lines(found.id);
    assert.deepEqual(
      lines.map((l) => [l.unmatched_reason, l.expected_amount]),
      [
        ['amount_differs', 12_000],
        ['direction_differs', null],
        ['unknown_transaction', null],
      ],
    );
  });

  test('a malformed file is refused whole, with its line, and stores nothing', async () => {
    const before = await stored(t);
    const fresh = {
      orderId: randomUUID(),
      transactionId: '700009',
      type: 'DT' as const,
      amount: 700,
      remittanceNb: '000060',
    };
    const good = jrbText([fresh, { ...fresh, transactionId: '700010' }]);
    const at = good.lastIndexOf(';DT;');
    const text = `${good.slice(0, at)};XX;${good.slice(at + 4)}`;
    await assert.rejects(importJrb(deps(), target(), [Buffer.from(text)]), (err: unknown) => {
      assert.ok(err instanceof JrbRefused, String(err));
      assert.equal(err.line, 4);
      return true;
    });
    assert.deepEqual(await stored(t), before, 'the first, good line was not kept either');
  });

  test('another hotel sees nothing of it, and its own import matches nothing of this hotel', async () => {
    const other = await t.newTenant('Hotel Other');
    assert.deepEqual(await remittancesRepository(t.db).list(other.tenantId), []);
    const theirs = await importJrb(deps(), { tenantId: other.tenantId, provider: 'sandbox' }, [jrb(ops)]);
    assert.deepEqual(theirs, { remittances: 1, lines: 4, matched: 0, unmatched: 4, changed: 4 });
    const [remittance] = await remittancesRepository(t.db).list(other.tenantId);
    assert.ok(remittance);
    const lines = await remittancesRepository(t.db).lines(remittance.id);
    assert.ok(lines.every((l) => l.unmatched_reason === 'unknown_order' && l.payment_request_id === null));
    assert.equal(
      await remittancesRepository(t.db).find(
        other.tenantId,
        (await remittancesRepository(t.db).list(hotel.tenantId))[0]?.id ?? '',
      ),
      undefined,
    );
  });
});
