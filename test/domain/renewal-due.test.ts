import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { addDays } from '../../src/domain/index.ts';
import { renewalDue } from '../../src/holds/index.ts';

const PARIS = 'Europe/Paris';
const VISA_MS = (4 * 24 + 18) * 3600_000;
const SEVEN_DAYS_MS = 7 * 24 * 3600_000;
/** 07:00 in Paris on `day` (winter: UTC+1), when the daily jobs run. */
const at7 = (day: string) => new Date(`${day}T06:00:00Z`);

describe('which holds the daily run renews', () => {
  test('a seven-night stay on Visa: renewed the day before each hold lapses, until one outlasts the check-out day', () => {
    const checkin = '2026-12-12';
    const stay = { checkin, checkout: addDays(checkin, 7) };
    // The hold job places the first hold two days before check-in, at 07:00.
    let expires = new Date(at7(addDays(checkin, -2)).getTime() + VISA_MS);
    const renewedOn: string[] = [];
    for (let d = -1; d <= 7; d++) {
      const day = addDays(checkin, d);
      assert.ok(expires > at7(day), `${day}: the live hold outlasts the run`);
      if (renewalDue(expires, stay, PARIS, day)) {
        renewedOn.push(day);
        expires = new Date(at7(day).getTime() + VISA_MS);
      }
    }
    assert.deepEqual(renewedOn, ['2026-12-14', '2026-12-18']);
    assert.ok(
      expires >= new Date(`${addDays(stay.checkout, 1)}T00:00:00+01:00`),
      'the last hold outlasts the check-out day',
    );
  });

  test('a hold that outlives the decision is never renewed; nor a stay with no date', () => {
    const stay = { checkin: '2026-12-12', checkout: '2026-12-14' };
    const expires = new Date(at7('2026-12-10').getTime() + SEVEN_DAYS_MS);
    for (const day of ['2026-12-10', '2026-12-13', '2026-12-16'])
      assert.equal(renewalDue(expires, stay, PARIS, day), false, day);
    assert.equal(
      renewalDue(
        new Date(at7('2026-12-10').getTime() + VISA_MS),
        { checkin: null, checkout: null },
        PARIS,
        '2026-12-11',
      ),
      false,
    );
  });

  test('the day is the hotel’s: a hold ending at 23:30 UTC ends the next day in Paris', () => {
    const stay = { checkin: '2026-12-12', checkout: '2026-12-20' };
    const expires = new Date('2026-12-15T23:30:00Z'); // 16 December, 00:30 in Paris
    assert.equal(renewalDue(expires, stay, PARIS, '2026-12-14'), false, 'two days ahead in Paris');
    assert.equal(renewalDue(expires, stay, PARIS, '2026-12-15'), true);
    assert.equal(renewalDue(expires, stay, 'UTC', '2026-12-14'), true, 'in UTC it ends the 15th');
  });
});
