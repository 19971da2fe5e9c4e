/**
 * The instants a client may name in a list filter or a cursor: years 0001 to 9999. JavaScript
 * dates reach ±275760 and PostgreSQL's timestamps differ on the edges (year 0, extended years),
 * so a date outside this range was a database error (a 500); it is refused up front instead.
 * No payment request was created outside it.
 */
const MIN_MS = Date.parse('0001-01-01T00:00:00Z');
const MAX_MS = Date.parse('9999-12-31T23:59:59.999Z');

export const TIMESTAMP_RANGE_MESSAGE = 'must be a timestamp from 0001-01-01 to 9999-12-31';

export function isTimestampInRange(d: Date): boolean {
  const ms = d.getTime();
  return !Number.isNaN(ms) && ms >= MIN_MS && ms <= MAX_MS;
}
