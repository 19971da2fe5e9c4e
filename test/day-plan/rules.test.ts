import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { localDate } from '../../src/domain/index.ts';
import { decisionDate, lapsesBeforeDecision } from '../../src/holds/index.ts';
import { parseSettings } from '../../src/tenants/index.ts';

describe('the hotel’s day: the lapse rule and the settings', () => {
  test('the decision is the check-out date, else the day after check-in', () => {
    assert.equal(decisionDate('2026-12-24', '2026-12-27'), '2026-12-27');
    assert.equal(decisionDate('2026-12-24', null), '2026-12-25');
    assert.equal(decisionDate('2026-12-24', 'not a date'), '2026-12-25');
    assert.equal(decisionDate(null, null), null);
  });

  test('a hold lapses before the decision when it ends on an earlier day in the hotel’s zone', () => {
    const stay = { checkin: '2026-12-24', checkout: '2026-12-27' };
    // 23:30 UTC on the 26th is already the 27th in Paris: the check-out day, not before it.
    const late = new Date('2026-12-26T23:30:00Z');
    assert.equal(localDate('Europe/Paris', late), '2026-12-27');
    assert.equal(lapsesBeforeDecision(late, stay, 'Europe/Paris'), false);
    assert.equal(lapsesBeforeDecision(late, stay, 'UTC'), true);
    assert.equal(lapsesBeforeDecision(new Date('2026-12-25T10:00:00Z'), stay, 'Europe/Paris'), true);
    assert.equal(lapsesBeforeDecision(late, { checkin: null, checkout: null }, 'UTC'), true, 'no dates: flagged');
  });

  test('reminder and digest settings: bounds, and every problem at once', () => {
    const bad = parseSettings({
      reminder_after_hours: '-1',
      reminder_before_expiry_hours: '721',
      reminder_max: '0',
      digest_hour: '24',
      digest_language: 'es',
    });
    assert.deepEqual(bad.patch, {});
    assert.deepEqual(bad.issues.map((i) => i.field).sort(), [
      'digest_hour',
      'digest_language',
      'reminder_after_hours',
      'reminder_before_expiry_hours',
      'reminder_max',
    ]);
    const good = parseSettings({
      reminders: 'on',
      reminder_after_hours: '0',
      reminder_max: '10',
      digest_email: true,
      digest_hour: '0',
      digest_language: 'de',
    });
    assert.deepEqual(good.issues, []);
    assert.deepEqual(good.patch, {
      reminders: true,
      reminder_after_hours: 0,
      reminder_max: 10,
      digest_email: true,
      digest_hour: 0,
      digest_language: 'de',
    });
  });
});
