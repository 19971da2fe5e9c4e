import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  allowedFrom,
  isTerminal,
  nextStatus,
  orderCycle,
  STATUSES,
  type Status,
  TRANSITIONS,
  targetOf,
  triggersOf,
} from '../../src/domain/index.ts';
import { noHoldWillBePlaced } from '../../src/holds/index.ts';

describe('the transition table', () => {
  test('every status but the start is the target of some transition, and NOT_INITIATED is left by some', () => {
    const targets = new Set(TRANSITIONS.map((t) => t.to));
    for (const s of STATUSES) if (s !== 'NOT_INITIATED') assert.ok(targets.has(s), `${s} is unreachable`);
    assert.ok(TRANSITIONS.some((t) => t.from.includes('NOT_INITIATED')));
  });

  test('a terminal status is never left, except CAPTURED by a refund', () => {
    for (const t of TRANSITIONS) {
      for (const from of t.from) {
        if (isTerminal(from)) assert.deepEqual([from, t.trigger, t.to], ['CAPTURED', 'refund', 'REFUNDED']);
      }
    }
  });

  test('each trigger has one target, whatever the start (one conditional UPDATE can apply it)', () => {
    const byTrigger = new Map<string, Set<Status>>();
    for (const t of TRANSITIONS) byTrigger.set(t.trigger, (byTrigger.get(t.trigger) ?? new Set()).add(t.to));
    for (const [trigger, targets] of byTrigger) assert.equal(targets.size, 1, trigger);
  });

  test('the moves of the documented lifecycle', () => {
    assert.equal(nextStatus('NOT_INITIATED', 'guest_opens_form', 'DEPOSIT'), 'PENDING');
    assert.equal(nextStatus('PENDING', 'guest_registers_card', 'IMPRINT'), 'AUTHORISED');
    assert.equal(nextStatus('PENDING', 'guest_registers_card', 'DEPOSIT'), undefined);
    assert.equal(nextStatus('PENDING', 'guest_pays', 'DEPOSIT'), 'CAPTURED');
    assert.equal(nextStatus('PENDING', 'guest_pays', 'IMPRINT'), undefined);
    assert.equal(nextStatus('AUTHORISED', 'deferred_hold_placed', 'IMPRINT'), 'AUTHORISED_TO_VALIDATE');
    assert.equal(nextStatus('ERROR', 'guest_pays', 'DEPOSIT'), 'CAPTURED', 'a guest may retry after an error');
    assert.equal(nextStatus('REFUSED', 'guest_pays', 'DEPOSIT'), undefined, 'REFUSED is terminal');
    assert.deepEqual(allowedFrom('capture').sort(), ['AUTHORISED_TO_VALIDATE']);
    assert.deepEqual(allowedFrom('release').sort(), ['AUTHORISED_TO_VALIDATE']);
    assert.deepEqual(allowedFrom('cancel').sort(), ['ERROR', 'NOT_INITIATED', 'PENDING']);
    // A connected PMS's cancellation also ends a registered card with no hold; the API's cancel does not.
    assert.deepEqual(allowedFrom('reservation_cancelled', 'IMPRINT'), ['AUTHORISED']);
    assert.deepEqual(allowedFrom('reservation_cancelled', 'DEPOSIT'), []);
    assert.equal(targetOf('reservation_cancelled'), 'CANCELLED');
    assert.equal(targetOf('capture'), 'CAPTURED');
    assert.equal(targetOf('release'), 'CANCELLED');
    assert.equal(targetOf('refund'), 'REFUNDED');
  });

  test('order_cycle is CLOSED exactly for the terminal statuses', () => {
    const closed = STATUSES.filter((s) => orderCycle(s) === 'CLOSED').sort();
    assert.deepEqual(closed, ['CANCELLED', 'CAPTURED', 'EXPIRED', 'REFUNDED', 'REFUSED']);
  });

  test('a history row names its move: a hold freed is a release, a cancellation is not', () => {
    assert.deepEqual(triggersOf('AUTHORISED_TO_VALIDATE', 'CANCELLED'), ['release']);
    assert.deepEqual(triggersOf('PENDING', 'CANCELLED'), ['cancel']);
    assert.deepEqual(triggersOf(null, 'NOT_INITIATED'), []);
  });

  test('an imprint without a check-in is flagged while a hold could still come, not after', () => {
    const flagged = STATUSES.filter((status) => noHoldWillBePlaced({ request_type: 'IMPRINT', checkin: null, status }));
    assert.deepEqual(flagged.sort(), ['AUTHORISED', 'ERROR', 'NOT_INITIATED', 'PENDING']);
    assert.equal(noHoldWillBePlaced({ request_type: 'DEPOSIT', checkin: null, status: 'PENDING' }), false);
    assert.equal(noHoldWillBePlaced({ request_type: 'IMPRINT', checkin: '2026-12-24', status: 'PENDING' }), false);
  });

  test('a held request becomes CANCELLED by a release only: the status change stamps released_at on that move', () => {
    // src/db/status-changes.ts sets released_at for AUTHORISED_TO_VALIDATE -> CANCELLED; a second
    // trigger for that move would be stamped as a release too.
    assert.deepEqual(triggersOf('AUTHORISED_TO_VALIDATE', 'CANCELLED'), ['release']);
  });
});
