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

/** One wall-clock reader per zone: building one costs far more than reading with it. */
const wallClocks = new Map<string, Intl.DateTimeFormat>();

function wallClock(timeZone: string): Intl.DateTimeFormat {
  let clock = wallClocks.get(timeZone);
  if (!clock) {
    clock = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    wallClocks.set(timeZone, clock);
  }
  return clock;
}

/** How far `timeZone`'s wall clock is ahead of UTC at `at`, in milliseconds. */
function zoneOffsetMs(at: number, timeZone: string): number {
  const parts = wallClock(timeZone).formatToParts(new Date(at));
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

/**
 * Zones change their offset on a quarter hour at the finest: within one quarter hour the offset
 * read once holds for every instant. An export of a million rows reads it a few thousand times
 * instead of a million (the wall-clock reader is the costly part).
 */
const QUARTER_HOUR_MS = 900_000;
const offsets = new Map<string, number>();

function cachedOffsetMs(ms: number, timeZone: string): number {
  const bucket = Math.floor(ms / QUARTER_HOUR_MS);
  const key = `${timeZone}|${bucket}`;
  let offset = offsets.get(key);
  if (offset === undefined) {
    offset = zoneOffsetMs(bucket * QUARTER_HOUR_MS, timeZone);
    // Bounded: an old export's quarter hours are not kept for the process's life.
    if (offsets.size >= 10_000) offsets.clear();
    offsets.set(key, offset);
  }
  return offset;
}

const pad = (n: number, width = 2) => String(Math.trunc(n)).padStart(width, '0');

/**
 * An instant as ISO 8601 on a zone's wall clock with its offset, `2026-11-25T08:41:00+01:00`:
 * what an accountant reads as the hotel's time, and what a program reads as the same instant.
 */
export function isoInZone(at: Date, timeZone: string): string {
  const ms = at.getTime();
  const offset = cachedOffsetMs(ms, timeZone);
  const wall = new Date(ms - (ms % 1000) + offset);
  const sign = offset < 0 ? '-' : '+';
  const minutes = Math.abs(offset) / 60_000;
  return `${pad(wall.getUTCFullYear(), 4)}-${pad(wall.getUTCMonth() + 1)}-${pad(wall.getUTCDate())}T${pad(
    wall.getUTCHours(),
  )}:${pad(wall.getUTCMinutes())}:${pad(wall.getUTCSeconds())}${sign}${pad(minutes / 60)}:${pad(minutes % 60)}`;
}

/** The calendar day after a `YYYY-MM-DD` day: "until the 30th" ends at the 1st's midnight. */
export function dayAfter(date: string): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}
