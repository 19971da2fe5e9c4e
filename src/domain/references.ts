import type { RequestType } from './statuses.ts';

const PREFIX: Record<RequestType, string> = { DEPOSIT: 'DEP', IMPRINT: 'IMP' };

/** `DEP-2026-0042`: at least four digits, more when the counter passes 9999. */
export function formatReference(type: RequestType, year: number, n: number): string {
  return `${PREFIX[type]}-${year}-${String(n).padStart(4, '0')}`;
}

/**
 * The PostgreSQL sequence that numbers one tenant's requests of one type in one year.
 * A sequence, not a counter row: nextval() takes no lock that lasts until commit, so one busy
 * tenant's creates never queue behind each other. Gaps are allowed; uniqueness is kept by
 * the sequence and proven by a unique index.
 */
export function referenceSequenceName(tenantId: string, type: RequestType, year: number): string {
  return `ref_${tenantId.replaceAll('-', '')}_${PREFIX[type].toLowerCase()}_${year}`;
}

const yearFormatters = new Map<string, Intl.DateTimeFormat>();
/** The last answer per zone, by minute: every zone's offset today is whole minutes, so a year
 * can only turn at a minute's start, and formatting a date costs more than a create's SQL call. */
const lastYear = new Map<string, { minute: number; year: number }>();

/** The calendar year at `at` in the tenant's time zone: a hotel's year starts at its midnight. */
export function yearIn(timeZone: string, at: Date): number {
  const minute = Math.floor(at.getTime() / 60_000);
  const last = lastYear.get(timeZone);
  if (last?.minute === minute) return last.year;
  let f = yearFormatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', { timeZone, year: 'numeric' });
    yearFormatters.set(timeZone, f);
  }
  const year = Number(f.format(at));
  lastYear.set(timeZone, { minute, year });
  return year;
}
