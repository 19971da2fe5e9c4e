import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  AppError,
  formatMoney,
  formatReference,
  isIsoDate,
  referenceSequenceName,
  toMinorUnits,
  validateCreate,
  yearIn,
} from '../../src/domain/index.ts';

describe('money', () => {
  test('two decimals become exact cents; a third decimal is refused, never rounded', () => {
    assert.equal(toMinorUnits(10.1), 1010);
    assert.equal(toMinorUnits(0.29), 29);
    assert.equal(toMinorUnits(1_000_000), 100_000_000);
    assert.equal(toMinorUnits(10.001), undefined);
    assert.equal(toMinorUnits(0.005), undefined);
    assert.equal(toMinorUnits(Number.NaN), undefined);
  });

  test('a remembered amount reads as Intl formats it, for each language, past the memory bound', () => {
    const locales = ['fr-FR', 'en-GB', 'de-DE'];
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100_000_000 }), fc.constantFrom(...locales), (cents, locale) => {
        const expected = new Intl.NumberFormat(locale, { style: 'currency', currency: 'EUR' }).format(cents / 100);
        assert.equal(formatMoney(cents, 'EUR', locale), expected);
        assert.equal(formatMoney(cents, 'EUR', locale), expected, 'asked a second time');
      }),
      { numRuns: 3000 },
    );
    // The same amount in another language is not the remembered text of the first.
    assert.notEqual(formatMoney(123456, 'EUR', 'fr-FR'), formatMoney(123456, 'EUR', 'en-GB'));
  });

  test('a currency code Intl cannot format (a row stored as sent) is shown by its code, never thrown', () => {
    assert.equal(formatMoney(1250, 'EURO', 'en-GB'), '12.50 EURO');
    assert.equal(formatMoney(1250, 'EURO', 'fr-FR'), '12,50 EURO');
    assert.equal(formatMoney(1250, 'EUR', 'en-GB'), '€12.50', 'a known code as before');
  });

  test('every amount of whole cents up to the maximum survives the trip', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100_000_000 }), (cents) => {
        assert.equal(toMinorUnits(Number((cents / 100).toFixed(2))), cents);
      }),
    );
  });
});

describe('references', () => {
  test('four digits at least, more past 9999', () => {
    assert.equal(formatReference('DEPOSIT', 2026, 7), 'DEP-2026-0007');
    assert.equal(formatReference('IMPRINT', 2026, 10_000), 'IMP-2026-10000');
  });

  test('the sequence name is a safe identifier under the 63-byte limit', () => {
    const name = referenceSequenceName('0b6f3b5e-1d2c-4c6e-9a51-6f0c9a7e2b11', 'DEPOSIT', 2026);
    assert.match(name, /^[a-z0-9_]+$/);
    assert.ok(name.length <= 63);
  });

  test("the year is the tenant's: New Year's Eve in Paris is already next year in Tokyo", () => {
    const at = new Date('2026-12-31T16:00:00Z');
    assert.equal(yearIn('Europe/Paris', at), 2026);
    assert.equal(yearIn('Asia/Tokyo', at), 2027);
  });

  test('the year turns at the first instant of the minute after midnight, remembered answers or not', () => {
    // Paris midnight is 23:00Z; Kathmandu (+05:45) turns at 18:15Z.
    for (const [zone, lastMs, firstMs] of [
      ['Europe/Paris', '2026-12-31T22:59:59.999Z', '2026-12-31T23:00:00.000Z'],
      ['Asia/Kathmandu', '2026-12-31T18:14:59.999Z', '2026-12-31T18:15:00.000Z'],
    ] as const) {
      assert.equal(yearIn(zone, new Date(lastMs)), 2026);
      assert.equal(yearIn(zone, new Date(lastMs)), 2026);
      assert.equal(yearIn(zone, new Date(firstMs)), 2027);
      assert.equal(yearIn(zone, new Date(lastMs)), 2026);
    }
  });
});

describe('create rules', () => {
  const base = {
    request_type: 'IMPRINT' as const,
    guest_email: 'a@example.com',
    guest_first_name: 'A',
    guest_last_name: 'B',
    reservation_ref: 'R',
  };

  test('calendar dates are checked for real', () => {
    assert.ok(isIsoDate('2028-02-29'));
    assert.ok(!isIsoDate('2026-02-29'));
    assert.ok(!isIsoDate('2026-13-01'));
    assert.ok(!isIsoDate('26-01-01'));
  });

  test('checkin is kept for the daily job; checkout before checkin is refused', () => {
    assert.equal(validateCreate({ ...base, reservation_data: { checkin: '2026-12-24' } }).checkin, '2026-12-24');
    assert.throws(
      () => validateCreate({ ...base, reservation_data: { checkin: '2026-12-24', checkout: '2026-12-20' } }),
      (e: unknown) => e instanceof AppError && e.httpStatus === 422,
    );
  });
});
