import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { paymentMethodOf, readReservation } from '../../src/pms/apaleo-wire.ts';
import { formFromReservation, requestByRule, ruleAmountCents } from '../../src/pms/reservation-rule.ts';
import { nextAttempt } from '../../src/pms/retry-schedule.ts';
import { tokenCache } from '../../src/pms/token-cache.ts';

// The Apaleo room's pure rules: the retry schedule, the card's method on the folio, the
// request a reservation makes by the hotel's rule, the token cache.
describe('Apaleo: the rules without the wire', () => {
  const t0 = new Date('2026-11-02T10:00:00Z');
  const at = (ms: number) => new Date(t0.getTime() + ms);

  test('retries: 1 s, doubling, 30 s at most in the first hour, 10 min after; Retry-After honoured; 3 days then given up', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7].map(
      (failures) => nextAttempt({ failures, firstDueAt: t0, now: t0 }).at.getTime() - t0.getTime(),
    );
    assert.deepEqual(delays, [1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
    const later = at(61 * 60_000);
    assert.equal(nextAttempt({ failures: 20, firstDueAt: t0, now: later }).at.getTime() - later.getTime(), 600_000);
    assert.equal(
      nextAttempt({ failures: 1, firstDueAt: t0, now: t0, retryAfterMs: 5000 }).at.getTime(),
      at(5000).getTime(),
    );
    assert.equal(
      nextAttempt({ failures: 3, firstDueAt: t0, now: t0, retryAfterMs: 1000 }).at.getTime(),
      at(4000).getTime(),
    );
    assert.equal(nextAttempt({ failures: 1, firstDueAt: t0, now: t0 }).giveUp, false);
    assert.equal(nextAttempt({ failures: 1, firstDueAt: t0, now: at(3 * 86_400_000) }).giveUp, true);
  });

  test("the method by the card's network", () => {
    assert.deepEqual(
      [
        paymentMethodOf('visa'),
        paymentMethodOf('visa', 'debit'),
        paymentMethodOf('mastercard'),
        paymentMethodOf('amex'),
        paymentMethodOf('cb'),
        paymentMethodOf('maestro'),
        paymentMethodOf(null),
      ],
      ['VisaCredit', 'VisaDebit', 'MasterCard', 'Amex', 'CreditCard', 'CreditCard', 'CreditCard'],
    );
  });

  const reservation = readReservation({
    id: 'XPGMSXGF-1',
    status: 'Confirmed',
    property: { id: 'MUC' },
    arrival: '2026-12-24T17:00:00+01:00',
    departure: '2026-12-27T11:00:00+01:00',
    primaryGuest: { firstName: 'Jon', lastName: 'Doe', email: 'jon@example.com', preferredLanguage: 'de-DE' },
    totalGrossAmount: { amount: 365, currency: 'EUR' },
    balance: { amount: -100.4, currency: 'EUR' },
    timeSlices: [
      { totalGrossAmount: { amount: 100, currency: 'EUR' } },
      { totalGrossAmount: { amount: 125, currency: 'EUR' } },
      { totalGrossAmount: { amount: 140, currency: 'EUR' } },
    ],
  });

  test('the rule: an imprint of the stay, N % of it, or its first N nights', () => {
    assert.ok(reservation);
    assert.equal(ruleAmountCents(reservation, { kind: 'imprint', value: null }), 36_500);
    assert.equal(ruleAmountCents(reservation, { kind: 'deposit_percent', value: 30 }), 10_950);
    assert.equal(ruleAmountCents(reservation, { kind: 'deposit_nights', value: 2 }), 22_500);
    assert.equal(ruleAmountCents(reservation, { kind: 'deposit_nights', value: 9 }), 36_500);
    assert.deepEqual(requestByRule(reservation, { kind: 'deposit_nights', value: 1 }), {
      request_type: 'DEPOSIT',
      amount: 100,
      currency: 'EUR',
      guest_email: 'jon@example.com',
      guest_first_name: 'Jon',
      guest_last_name: 'Doe',
      language: 'de',
      reservation_ref: 'XPGMSXGF-1',
      reservation_data: { checkin: '2026-12-24', checkout: '2026-12-27' },
    });
  });

  test('the form from a reservation: what the guest owes (the balance, negative while owed)', () => {
    assert.ok(reservation);
    assert.equal(formFromReservation(reservation).amount, '100.40');
    assert.equal(formFromReservation({ ...reservation, balance: { amount: 0, currency: 'EUR' } }).amount, '365.00');
    assert.equal(readReservation({ id: 'x' }), undefined, 'no property: not a reservation');
  });

  test('tokens: one fetch for concurrent callers, kept until it dies, dropped once on a 401', async () => {
    let now = 0;
    const cache = tokenCache(() => now);
    let fetched = 0;
    const fetchToken = async () => {
      fetched++;
      await new Promise((r) => setTimeout(r, 5));
      return { value: `t${fetched}`, usableUntil: now + 1000 };
    };
    const [a, b, c] = await Promise.all([1, 2, 3].map(() => cache.get('h:1', fetchToken)));
    assert.deepEqual([a?.value, b?.value, c?.value, fetched], ['t1', 't1', 't1', 1]);
    now = 999;
    assert.equal((await cache.get('h:1', fetchToken)).value, 't1');
    now = 1000;
    assert.equal((await cache.get('h:1', fetchToken)).value, 't2');
    cache.drop('h:1', 't2');
    cache.drop('h:1', 't2');
    assert.equal((await cache.get('h:1', fetchToken)).value, 't3');
    cache.drop('h:1', 't2');
    assert.equal((await cache.get('h:1', fetchToken)).value, 't3', 'a stale 401 does not drop the new token');
  });
});
