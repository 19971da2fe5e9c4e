import { addDays, isIsoDate, localDate } from '../domain/index.ts';

/**
 * When a hotel decides about a guarantee: capture it (a no-show, damage) or release it. The
 * decision can wait until the guest leaves, so it is the check-out date; a stay without one is
 * decided the morning after check-in (the no-show is known by then). Null: no date at all.
 */
export function decisionDate(checkin: string | null, checkout: string | null): string | null {
  if (checkout && isIsoDate(checkout)) return checkout;
  return checkin ? addDays(checkin, 1) : null;
}

/**
 * A hold lapses before the hotel's decision when it ends (its expiry: placed + the tenant's
 * hold_days on the sandbox, the provider's own window on Lyra, whichever is shorter, as stored
 * in hold_expires_at) on a day before the decision date, in the hotel's zone. A request with no
 * date to decide by is flagged too: nobody can say the hold will last long enough.
 */
export function lapsesBeforeDecision(
  holdExpiresAt: Date,
  stay: { checkin: string | null; checkout: string | null },
  timeZone: string,
): boolean {
  const decision = decisionDate(stay.checkin, stay.checkout);
  return decision === null || localDate(timeZone, holdExpiresAt) < decision;
}

/**
 * A hold to renew at the daily run of `runDay` (the hotel's date): it ends on or before the
 * hotel's decision date, so it would not last through that day (a Visa hold placed at 07:00
 * ends at 01:00 four days later), and before the next run could renew it (on or before the day
 * after `runDay`, in the hotel's zone). A stay with no date to decide by is never renewed:
 * nobody can say how long its guarantee must last.
 */
export function renewalDue(
  holdExpiresAt: Date,
  stay: { checkin: string | null; checkout: string | null },
  timeZone: string,
  runDay: string,
): boolean {
  const decision = decisionDate(stay.checkin, stay.checkout);
  if (decision === null) return false;
  const ends = localDate(timeZone, holdExpiresAt);
  return ends <= decision && ends <= addDays(runDay, 1);
}
