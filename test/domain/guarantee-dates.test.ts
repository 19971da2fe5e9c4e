import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { addDays } from '../../src/domain/index.ts';
import {
  cardExpiresBeforeHold,
  dueCheckins,
  HOLD_DAYS_BEFORE_CHECKIN,
  holdDateFor,
  holdMonthFor,
} from '../../src/holds/index.ts';

describe('guarantee dates: when a hold is placed', () => {
  test('calendar days across a month, a year, a leap day and both DST changes', () => {
    assert.equal(addDays('2026-01-31', 1), '2026-02-01');
    assert.equal(addDays('2026-12-31', 1), '2027-01-01');
    assert.equal(addDays('2028-03-01', -1), '2028-02-29');
    assert.equal(addDays('2026-03-29', -2), '2026-03-27');
    assert.equal(addDays('2026-10-25', 2), '2026-10-27');
  });

  test('the hold of a stay is placed two days before check-in', () => {
    assert.equal(HOLD_DAYS_BEFORE_CHECKIN, 2);
    assert.equal(holdDateFor('2026-12-24'), '2026-12-22');
    assert.equal(holdDateFor('2027-01-01'), '2026-12-30');
  });

  test('due on a day: check-ins from that day to two days ahead, so a missed day is caught up', () => {
    assert.deepEqual(dueCheckins('2026-11-25'), { from: '2026-11-25', to: '2026-11-27' });
    assert.deepEqual(dueCheckins('2026-12-31'), { from: '2026-12-31', to: '2027-01-02' });
  });

  test('a card lapses before its hold when its month ends before the hold is placed', () => {
    const today = '2026-11-25';
    // Check-in 2 March: held on 28 February. A card valid through February still holds.
    assert.equal(cardExpiresBeforeHold({ month: 2, year: 2027 }, '2027-03-02', today), false);
    assert.equal(cardExpiresBeforeHold({ month: 1, year: 2027 }, '2027-03-02', today), true);
    // Check-in 3 March: held on 1 March; February is too short.
    assert.equal(cardExpiresBeforeHold({ month: 2, year: 2027 }, '2027-03-03', today), true);
    assert.equal(holdMonthFor('2027-03-03', today), '2027-03');
    // Across a year; and a hold date already past is today's.
    assert.equal(cardExpiresBeforeHold({ month: 12, year: 2026 }, '2027-01-03', today), true);
    assert.equal(cardExpiresBeforeHold({ month: 11, year: 2026 }, '2026-11-26', today), false);
    assert.equal(holdMonthFor('2026-11-26', today), '2026-11');
  });
});
