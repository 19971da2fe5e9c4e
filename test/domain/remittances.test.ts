import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { currencyOfCode } from '../../src/domain/index.ts';
import { lineAmounts, matchLine, type RemittableRow } from '../../src/payouts/index.ts';

const row = (id: string, kind: RemittableRow['kind'], amount: number, number: string | null): RemittableRow => ({
  id,
  kind,
  amount,
  currency: 'EUR',
  transactionNumber: number,
});
const debit = (transactionId: string, amount: number) => ({
  transactionId,
  direction: 'debit' as const,
  amount,
  currency: 'EUR',
});
const credit = (transactionId: string, amount: number) => ({
  ...debit(transactionId, amount),
  direction: 'credit' as const,
});
const none = () => false;

describe('a remittance line and the ledger row it pays out', () => {
  test('by the order and the transaction number, checked on direction, currency and amount', () => {
    const rows = [row('1', 'payment', 12_000, '100001'), row('2', 'refund', 4_000, '100002')];
    assert.deepEqual(matchLine(debit('100001', 12_000), rows, none), { ledgerId: '1' });
    assert.deepEqual(matchLine(credit('100002', 4_000), rows, none), { ledgerId: '2' });
    assert.deepEqual(matchLine(debit('100001', 11_000), rows, none), { reason: 'amount_differs', expected: 12_000 });
    assert.deepEqual(matchLine(credit('100001', 12_000), rows, none), { reason: 'direction_differs' });
    assert.deepEqual(matchLine(debit('100002', 4_000), rows, none), { reason: 'direction_differs' });
    assert.deepEqual(matchLine({ ...debit('100001', 12_000), currency: 'CHF' }, rows, none), {
      reason: 'currency_differs',
    });
    assert.deepEqual(matchLine(debit('999999', 12_000), rows, none), { reason: 'unknown_transaction' });
    assert.deepEqual(matchLine(debit('100001', 12_000), undefined, none), { reason: 'unknown_order' });
    assert.deepEqual(matchLine(debit('100001', 12_000), [], none), { reason: 'unknown_order' });
  });

  test('money held by another line already is not paid out twice', () => {
    const rows = [row('1', 'payment', 12_000, '100001')];
    assert.deepEqual(
      matchLine(debit('100001', 12_000), rows, (id) => id === '1'),
      { reason: 'already_paid_out' },
    );
  });

  test('a refund that lowered the payment before it reached the bank: one debit of what is left', () => {
    // Lyra lowers a payment not yet sent to the bank (the same transaction, the same number).
    const rows = [row('1', 'payment', 12_000, '100001'), row('2', 'refund', 2_000, '100001')];
    assert.deepEqual(matchLine(debit('100001', 10_000), rows, none), { ledgerId: '1' });
    assert.deepEqual(matchLine(debit('100001', 12_000), rows, none), { reason: 'amount_differs', expected: 10_000 });
  });

  test('rows written before payreq kept the number: by direction and amount, when one fits', () => {
    const rows = [row('1', 'capture', 9_500, null), row('2', 'refund', 9_500, null)];
    assert.deepEqual(matchLine(debit('100001', 9_500), rows, none), { ledgerId: '1' });
    assert.deepEqual(matchLine(credit('100009', 9_500), rows, none), { ledgerId: '2' });
    assert.deepEqual(
      matchLine(debit('100001', 9_500), rows, (id) => id === '1'),
      { reason: 'unknown_transaction' },
    );
    const two = [row('1', 'payment', 9_500, null), row('3', 'payment', 9_500, null)];
    assert.deepEqual(matchLine(debit('100001', 9_500), two, none), { reason: 'unknown_transaction' }, 'never a guess');
  });
});

describe("a line's fee and net", () => {
  test('from the net, the commission, both or neither; always net = gross - fee', () => {
    assert.deepEqual(lineAmounts('debit', 10_000, 9_835, 165), { gross: 10_000, fee: 165, net: 9_835 });
    assert.deepEqual(lineAmounts('debit', 10_000, undefined, 165), { gross: 10_000, fee: 165, net: 9_835 });
    assert.deepEqual(lineAmounts('debit', 10_000, 9_835, undefined), { gross: 10_000, fee: 165, net: 9_835 });
    assert.deepEqual(lineAmounts('debit', 10_000, undefined, undefined), { gross: 10_000, fee: 0, net: 10_000 });
    assert.deepEqual(lineAmounts('credit', 4_000, 4_000, 0), { gross: -4_000, fee: 0, net: -4_000 });
    // A refund's commission kept (the hotel pays more back) or given back (it pays less back).
    assert.deepEqual(lineAmounts('credit', 4_000, 4_050, 50), { gross: -4_000, fee: 50, net: -4_050 });
    assert.deepEqual(lineAmounts('credit', 4_000, 3_950, 50), { gross: -4_000, fee: -50, net: -3_950 });
  });

  test('amounts that do not add up, or a fee beyond the gross (another unit), are refused', () => {
    assert.equal(lineAmounts('debit', 10_000, 9_800, 165), undefined);
    assert.equal(lineAmounts('debit', 10_000, 983_500, undefined), undefined, 'a net in ten-thousandths');
    assert.equal(lineAmounts('debit', 100, undefined, 101), undefined);
    assert.equal(lineAmounts('debit', 10_000, 10_100, undefined), undefined, 'a payment’s net above its gross');
  });
});

describe("a report's currency code", () => {
  test('ISO 4217 numeric (or alphabetic) codes of the currencies payreq takes', () => {
    assert.equal(currencyOfCode('978'), 'EUR');
    assert.equal(currencyOfCode('756'), 'CHF');
    assert.equal(currencyOfCode('840'), 'USD');
    assert.equal(currencyOfCode('EUR'), 'EUR');
    assert.equal(currencyOfCode('826'), undefined);
    assert.equal(currencyOfCode(''), undefined);
  });
});
