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

/** How far `timeZone`'s wall clock is ahead of UTC at `at`, in milliseconds. */
function zoneOffsetMs(at: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(at));
  const n = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second')) - (at - (at % 1000));
}

/**
 * The instant a day (`YYYY-MM-DD`) begins in `timeZone`: a hotel's "from the 24th" is from its
 * own midnight. Twice round, for a day whose offset changes (daylight saving time).
 */
export function midnightIn(date: string, timeZone: string): Date {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const wall = Date.UTC(y, m - 1, d);
  let at = wall - zoneOffsetMs(wall, timeZone);
  at = wall - zoneOffsetMs(at, timeZone);
  return new Date(at);
}
