import { addDays, allowedFrom, type Status } from '../domain/index.ts';

/**
 * When a guarantee's hold is placed: the daily job holds an imprint's card 2 days before
 * check-in, so the hold is fresh on the day a no-show is decided. The guest page, the e-mails
 * and the job all say and do it from this one rule.
 */
export const HOLD_DAYS_BEFORE_CHECKIN = 2;

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The day until which a guarantee's holds are renewed, when its stay outlasts one hold of `days`
 * days placed on its hold date: the hotel's decision date (check-out, or the day after
 * check-in). Null: one hold covers the stay, or there is no check-in to count from.
 */
export function renewedUntil(checkin: string | undefined, checkout: string | undefined, days: number): string | null {
  if (!checkin || !ISO_DATE.test(checkin)) return null;
  const decision = checkout && ISO_DATE.test(checkout) ? checkout : addDays(checkin, 1);
  return decision >= addDays(holdDateFor(checkin), days) ? decision : null;
}

/** The day the hold of a stay starting on `checkin` is placed. */
export function holdDateFor(checkin: string): string {
  return addDays(checkin, -HOLD_DAYS_BEFORE_CHECKIN);
}

/**
 * The check-ins whose hold is due on `today`: from today to the hold's lead, so a day the job
 * did not run is caught up, and a check-in that has passed is not held.
 */
export function dueCheckins(today: string): { from: string; to: string } {
  return { from: today, to: addDays(today, HOLD_DAYS_BEFORE_CHECKIN) };
}

/**
 * An IMPRINT with no check-in date is accepted (the date is optional in the integration
 * contract), but the daily job has no day to hold its card on: until it is captured by hand it
 * guarantees nothing. The create answer warns the PMS and the back office says so, while the
 * request could still be held.
 */
export function noHoldWillBePlaced(r: { request_type: string; checkin: string | null; status: string }): boolean {
  return r.request_type === 'IMPRINT' && r.checkin === null && STILL_TO_HOLD.includes(r.status as Status);
}

/** An imprint whose card may still be registered, or is registered and not yet held. */
const STILL_TO_HOLD: readonly Status[] = [
  ...allowedFrom('guest_registers_card', 'IMPRINT'),
  ...allowedFrom('deferred_hold_placed', 'IMPRINT'),
];

/**
 * The history's `reason` when payreq refused a registration itself because the card lapses
 * before its hold: the guest page words it from there.
 */
export const CARD_EXPIRES_BEFORE_HOLD = 'card_expires_before_hold';

/** A card's expiry as the provider reports it: valid through the last day of `month`. */
export interface CardExpiry {
  month: number;
  year: number;
}

/**
 * Whether a card registered for a stay starting on `checkin` lapses before its hold is placed:
 * the hold would be refused, so the registration is refused at once and the guest asked for
 * another card while still on the page. A hold date already past means the job holds on `today`.
 */
export function cardExpiresBeforeHold(expiry: CardExpiry, checkin: string, today: string): boolean {
  const due = holdDateFor(checkin);
  const holdOn = due < today ? today : due;
  const [year, month] = holdOn.split('-').map(Number) as [number, number];
  return expiry.year < year || (expiry.year === year && expiry.month < month);
}

/** The first month a card must still be valid in to be held for `checkin` (`YYYY-MM`). */
export function holdMonthFor(checkin: string, today: string): string {
  const due = holdDateFor(checkin);
  return (due < today ? today : due).slice(0, 7);
}
