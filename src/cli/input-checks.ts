import { DAY_RANGE_TEXT, isDayInRange, isUuid } from '../domain/index.ts';
import { CliError } from './cli-error.ts';

/**
 * Checks of command-line values, each with the message the user sees. They run before any
 * SQL, so a typo never reaches the database as a driver error.
 */

// A date, or a date-time that says its offset: an expiry must not depend on the shell's zone.
const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2}))?$/i;

export function text(option: string, value: string | undefined, max: number): string {
  const v = value?.trim() ?? '';
  if (v === '') throw new CliError(`--${option} is required and must not be empty`);
  if (v.length > max) throw new CliError(`--${option} must be at most ${max} characters (got ${v.length})`);
  return v;
}

export function tenantId(value: string | undefined): string {
  if (!value) throw new CliError('--tenant is required (a tenant id, see `payreq tenant list`)');
  if (!isUuid(value)) throw new CliError(`--tenant must be a tenant id (a UUID), got "${value}"`);
  return value.toLowerCase();
}

/** An IANA zone name as Intl knows it, returned in its canonical spelling. */
export function timezone(value: string): string {
  try {
    if (!/^[A-Za-z][\w+-]*(\/[\w+-]+)*$/.test(value)) throw new RangeError();
    return new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    throw new CliError(`--timezone must be an IANA time zone such as Europe/Paris (got "${value}")`);
  }
}

function isRealDate(y: number, m: number, d: number): boolean {
  return m >= 1 && m <= 12 && d >= 1 && d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/** `YYYY-MM-DD` that exists on the calendar (no 2026-02-30), from 0100-01-01 to 9999-12-31, as every date field. */
export function calendarDate(option: string, value: string): string {
  if (!isDayInRange(value)) throw new CliError(`--${option} must be ${DAY_RANGE_TEXT} (got "${value}")`);
  return value;
}

/**
 * An ISO 8601 instant in the future: `2027-01-31` (midnight UTC) or a date-time with `Z` or an
 * offset, e.g. `2027-01-31T18:00:00+01:00`.
 */
export function futureInstant(option: string, value: string, now = new Date()): Date {
  const m = ISO_INSTANT.exec(value);
  const hour = Number(m?.[4] ?? 0);
  const minute = Number(m?.[5] ?? 0);
  const second = Number(m?.[6] ?? 0);
  const date = new Date(value);
  if (
    !m ||
    !isRealDate(Number(m[1]), Number(m[2]), Number(m[3])) ||
    hour > 23 ||
    minute > 59 ||
    second > 59 ||
    Number.isNaN(date.getTime())
  ) {
    throw new CliError(
      `--${option} must be an ISO 8601 date or date-time with offset, e.g. 2027-01-31 or 2027-01-31T18:00:00Z (got "${value}")`,
    );
  }
  if (date.getTime() <= now.getTime()) {
    throw new CliError(`--${option} must be in the future (got ${date.toISOString()})`);
  }
  return date;
}
