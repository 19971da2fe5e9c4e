import { isIsoDate } from './create-payment-request.ts';
import { dayAfter, midnightIn } from './timestamps.ts';

/**
 * Every date a filter, a form or a command reads (YYYY-MM-DD) is a day from FIRST_DAY to
 * LAST_DAY that exists on the calendar (isIsoDate): anything else is refused as a date (400 on a
 * page or the API, an error on the command line), never a 500. The last day included: a range
 * "until 9999-12-31" has no end, as nothing stored can be later (timestamps end there too).
 */
export const FIRST_DAY = '0100-01-01';
export const LAST_DAY = '9999-12-31';
/** The last instant a timestamp may hold: the end of a range with no end, where one is needed. */
export const END_OF_TIME = new Date('9999-12-31T23:59:59.999Z');
export const DAY_RANGE_TEXT = `a date YYYY-MM-DD from ${FIRST_DAY} to ${LAST_DAY}`;

export function isDayInRange(value: unknown): value is string {
  return isIsoDate(value);
}

/** The instant `day` begins in the zone. */
export function dayStart(day: string, timeZone: string): Date {
  return midnightIn(day, timeZone);
}

/**
 * The instant `day` ends in the zone (the next midnight), for a range that includes the whole
 * day; undefined for LAST_DAY: no end (its next midnight, in year 10000, is beyond every
 * stored timestamp, and was a 500 where it was written as text).
 */
export function dayEnd(day: string, timeZone: string): Date | undefined {
  return day >= LAST_DAY ? undefined : midnightIn(dayAfter(day), timeZone);
}

/** The next day, or undefined after LAST_DAY. */
export function nextDay(day: string): string | undefined {
  return day >= LAST_DAY ? undefined : dayAfter(day);
}
