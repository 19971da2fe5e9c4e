import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { PG, pgCode, type Repositories, repositories } from '../../src/db/index.ts';
import { type NewRemittanceLine, remittancesRepository } from '../../src/payouts/index.ts';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.ts';

/** A ledger row of money that moved (no request needed: the ledger keeps no foreign key to one). */
async function ledgerRow(
  t: TestDatabase,
  tenantId: string,
  kind: 'payment' | 'capture' | 'refund',
  amount: number,
  number: string | null,
  order = randomUUID(),
): Promise<{ id: string; order: string }> {
  const r = await t.db.query<{ id: string }>(
    `INSERT INTO money_ledger (payment_request_id, tenant_id, kind, amount, currency, provider, idempotency_key, state,
       source, legacy_trans_id)
     VALUES ($1, $2, $3, $4, 'EUR', 'sandbox', $5, 'succeeded', 'job', $6) RETURNING id::text`,
    [order, tenantId, kind, amount, `test:${randomUUID()}`, number],
  );
  return { id: (r.rows[0] as { id: string }).id, order };
}

/** A line key as the importer stores it (a digest written as a uuid), from a short name. */
const keyOf = (name: string) => `00000000-0000-4000-8000-${Buffer.from(name).toString('hex').padStart(12, '0')}`;

function line(remittanceId: string, key: string, over: Partial<NewRemittanceLine> = {}): NewRemittanceLine {
  return {
    remittanceId,
    key: keyOf(key),
    transactionId: key,
    orderId: randomUUID(),
    direction: 'debit',
    amount: 10_000,
    fee: 165,
    net: 9_835,
    currency: 'EUR',
    paymentDate: '2026-11-20',
    operationNumber: '1',
    paymentMethod: 'CB',
    matchStatus: 'MATCH_OK',
    paymentRequestId: null,
    ledgerId: null,
    unmatchedReason: 'unknown_order',
    expectedAmount: null,
    sourceLine: 3,
    ...over,
  };
}

// The remittances' storage: a remittance is named by its provider, number, date and currency,
// a line by its key within it; storing either again adds nothing; a remittance's totals are its
// lines' sums and always add up (net = gross - fees); a hotel reads only its own.
describe(`remittances storage (${ENGINE})`, () => {
  let t: TestDatabase;
  let repos: Repositories;
  let hotel: string;
  let other: string;
  before(async () => {
    t = await createTestDatabase();
    repos = repositories(t.db);
    hotel = (await repos.tenants.create({ name: 'Hôtel du Lac' })).id;
    other = (await repos.tenants.create({ name: 'Hotel Other' })).id;
  });
  after(() => t.drop());

  test('a remittance stored twice is one; a line stored twice is one; totals are the lines’ sums', async () => {
    const key = { remittanceNb: '4711', remittanceDate: '2026-11-21', currency: 'EUR' };
    const [id] = await t.db.transaction((tx) =>
      remittancesRepository(t.db).remittanceIds(tx, hotel, 'lyra', [key], 'SHOP'),
    );
    const [again] = await t.db.transaction((tx) =>
      remittancesRepository(t.db).remittanceIds(tx, hotel, 'lyra', [key], null),
    );
    assert.ok(id);
    assert.equal(again, id, 'the same provider, number, date and currency: the same remittance');
    const paid = await ledgerRow(t, hotel, 'payment', 10_000, '100001');
    const refunded = await ledgerRow(t, hotel, 'refund', 4_000, '100003');
    const lines = [
      line(id, 'a', { ledgerId: paid.id, paymentRequestId: paid.order, unmatchedReason: null }),
      line(id, 'b', { amount: 5_000, fee: 95, net: 4_905, paymentDate: '2026-11-19' }),
      line(id, 'c', {
        direction: 'credit',
        amount: 4_000,
        fee: 0,
        net: -4_000,
        ledgerId: refunded.id,
        paymentRequestId: refunded.order,
        unmatchedReason: null,
      }),
    ];
    const first = await t.db.transaction(async (tx) => {
      const matched = await remittancesRepository(t.db).storeLines(tx, hotel, lines);
      await remittancesRepository(t.db).refreshTotals(tx, [id]);
      return matched;
    });
    assert.deepEqual(first, [true, false, true]);
    const second = await t.db.transaction(async (tx) => {
      const matched = await remittancesRepository(t.db).storeLines(tx, hotel, [
        lines[0] as NewRemittanceLine,
        lines[1] as NewRemittanceLine,
      ]);
      await remittancesRepository(t.db).refreshTotals(tx, [id]);
      return matched;
    });
    assert.deepEqual(second, [true, false], 'stored again: what is stored stands');
    const [stored] = await remittancesRepository(t.db).list(hotel);
    assert.equal(stored?.id, id);
    assert.equal(stored?.shop, 'SHOP', 'a file without the shop keeps the one known');
    assert.deepEqual(
      [stored?.line_count, stored?.matched_count, stored?.gross, stored?.fees, stored?.net],
      [3, 2, 10_000 + 5_000 - 4_000, 165 + 95, 9_835 + 4_905 - 4_000],
    );
    assert.equal((stored?.gross ?? 0) - (stored?.fees ?? 0), stored?.net, 'gross - fees = net');
    const shown = await remittancesRepository(t.db).lines(id);
    assert.deepEqual(
      shown.map((l) => l.transaction_id),
      ['b', 'a', 'c'],
      'unmatched first, then as the report listed them',
    );
    assert.equal(shown[0]?.unmatched_reason, 'unknown_order');
    assert.equal(shown[1]?.ledger_kind, 'payment');
    const money = await t.db.transaction((tx) =>
      remittancesRepository(t.db).remittableRows(tx, hotel, [paid.order, refunded.order, randomUUID()]),
    );
    assert.deepEqual([...money.byOrder.keys()].sort(), [paid.order, refunded.order].sort());
    assert.deepEqual([...money.held].sort(), [paid.id, refunded.id].sort(), 'held by a line already');
    const theirs = await t.db.transaction((tx) => remittancesRepository(t.db).remittableRows(tx, other, [paid.order]));
    assert.equal(theirs.byOrder.size, 0, "another hotel's order is none of this one's");
  });

  test('a line that matched nothing and now does is matched; a matched line keeps its row', async () => {
    const [id] = await t.db.transaction((tx) =>
      remittancesRepository(t.db).remittanceIds(
        tx,
        hotel,
        'lyra',
        [{ remittanceNb: '4712', remittanceDate: '2026-11-22', currency: 'EUR' }],
        null,
      ),
    );
    assert.ok(id);
    const settled = await ledgerRow(t, hotel, 'capture', 10_000, '100007');
    const unmatched = line(id, 'late', { unmatchedReason: 'unknown_transaction', orderId: settled.order });
    assert.deepEqual(await t.db.transaction((tx) => remittancesRepository(t.db).storeLines(tx, hotel, [unmatched])), [
      false,
    ]);
    const now = { ...unmatched, ledgerId: settled.id, paymentRequestId: settled.order, unmatchedReason: null };
    const matched = await t.db.transaction(async (tx) => {
      const m = await remittancesRepository(t.db).storeLines(tx, hotel, [now]);
      await remittancesRepository(t.db).refreshTotals(tx, [id]);
      return m;
    });
    assert.deepEqual(matched, [true]);
    const [stored] = await remittancesRepository(t.db).lines(id);
    assert.equal(stored?.ledger_id, settled.id);
    assert.equal(stored?.unmatched_reason, null);
  });

  test('a line must be matched or say why not, and its amounts must add up', async () => {
    const [id] = await t.db.transaction((tx) =>
      remittancesRepository(t.db).remittanceIds(
        tx,
        hotel,
        'lyra',
        [{ remittanceNb: '4713', remittanceDate: '2026-11-23', currency: 'EUR' }],
        null,
      ),
    );
    assert.ok(id);
    await assert.rejects(
      t.db.transaction((tx) =>
        remittancesRepository(t.db).storeLines(tx, hotel, [line(id, 'e', { unmatchedReason: null })]),
      ),
      /check constraint/,
    );
    await assert.rejects(
      t.db.transaction((tx) => remittancesRepository(t.db).storeLines(tx, hotel, [line(id, 'f', { net: 10_000 })])),
      /check constraint/,
      'net = gross - fee',
    );
    assert.equal((await remittancesRepository(t.db).lines(id)).length, 0, 'nothing stored');
  });

  test('a hotel lists and finds its own remittances only, by date; fees a month', async () => {
    const [theirs] = await t.db.transaction((tx) =>
      remittancesRepository(t.db).remittanceIds(
        tx,
        other,
        'sandbox',
        [{ remittanceNb: '4711', remittanceDate: '2026-11-21', currency: 'EUR' }],
        null,
      ),
    );
    assert.ok(theirs);
    assert.deepEqual(
      (await remittancesRepository(t.db).list(hotel)).map((r) => r.remittance_nb),
      ['4713', '4712', '4711'],
    );
    assert.deepEqual(
      (await remittancesRepository(t.db).list(hotel, { from: '2026-11-22', to: '2026-11-22' })).map(
        (r) => r.remittance_nb,
      ),
      ['4712'],
    );
    assert.equal(await remittancesRepository(t.db).find(hotel, theirs), undefined, "another hotel's: not found");
    assert.equal((await remittancesRepository(t.db).find(other, theirs))?.provider, 'sandbox');
    assert.deepEqual(await remittancesRepository(t.db).feesByMonth(hotel), [
      { month: '2026-11', currency: 'EUR', remittances: 3, gross: 21_000, fees: 425, net: 20_575 },
    ]);
  });

  test('one ledger row is paid out once: a second line holding it is refused by the database', async () => {
    // A hotel of its own: the tests above count their hotel's remittances.
    const hotel = (await repos.tenants.create({ name: 'Hôtel Payé Une Fois' })).id;
    const [first] = await t.db.transaction((tx) =>
      remittancesRepository(t.db).remittanceIds(
        tx,
        hotel,
        'lyra',
        [{ remittanceNb: '5001', remittanceDate: '2026-11-22', currency: 'EUR' }],
        null,
      ),
    );
    const [second] = await t.db.transaction((tx) =>
      remittancesRepository(t.db).remittanceIds(
        tx,
        hotel,
        'lyra',
        [{ remittanceNb: '5002', remittanceDate: '2026-11-23', currency: 'EUR' }],
        null,
      ),
    );
    assert.ok(first && second);
    const paid = await ledgerRow(t, hotel, 'payment', 7_000, '500001');
    const holding = (id: string) =>
      line(id, 'x', { ledgerId: paid.id, paymentRequestId: paid.order, unmatchedReason: null });
    await t.db.transaction((tx) => remittancesRepository(t.db).storeLines(tx, hotel, [holding(first)]));
    await assert.rejects(
      t.db.transaction((tx) => remittancesRepository(t.db).storeLines(tx, hotel, [holding(second)])),
      (err: unknown) => pgCode(err) === PG.uniqueViolation,
    );
    const held = await t.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM remittance_lines WHERE ledger_id = $1',
      [paid.id],
    );
    assert.equal(held.rows[0]?.n, 1);
  });
});
