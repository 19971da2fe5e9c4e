import { Cron } from 'croner';

/**
 * Cron arithmetic for the scheduler, in the schedule's own time zone: `0 7 * * *` in
 * Europe/Paris is 07:00 Paris time in winter and in summer. croner handles DST: a time that
 * does not exist on the spring-forward day runs at the first valid minute after it, and a time
 * that occurs twice in autumn runs once.
 */

/**
 * Why `expr` is not a usable schedule, or undefined when it is. Five fields only (minute,
 * hour, day of month, month, day of week): the scheduler polls every few seconds, so a seconds
 * field would promise a precision it does not have.
 */
export function cronProblem(expr: string): string | undefined {
  const fields = expr.trim().split(/\s+/);
  if (fields.length !== 5) return 'a cron expression has 5 fields: minute hour day-of-month month day-of-week';
  try {
    const c = new Cron(expr, { timezone: 'UTC', paused: true });
    if (!c.nextRun(new Date())) return 'the expression never matches a future time';
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** The first time strictly after `after` that `expr` matches in `tz`. */
export function nextRunAfter(expr: string, tz: string, after: Date): Date {
  const next = new Cron(expr, { timezone: tz, paused: true }).nextRun(after);
  if (!next) throw new Error(`cron "${expr}" has no run after ${after.toISOString()}`);
  return next;
}

/** The calendar date (`YYYY-MM-DD`) at instant `at` in `tz`: a daily job's "today". */
export function dateIn(tz: string, at: Date): string {
  const parts = new Intl.DateTimeFormat('en', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' })
    .formatToParts(at)
    .reduce<Record<string, string>>((acc, p) => {
      acc[p.type] = p.value;
      return acc;
    }, {});
  return `${parts.year}-${parts.month}-${parts.day}`;
}

/**
 * The moment a daily job scheduled by `expr` in `tz` runs on `date` (its first run that day):
 * the test clock's "now" for a run made for that day. Undefined when the schedule has no run
 * on that date.
 */
export function scheduledMomentOn(expr: string, tz: string, date: string): Date | undefined {
  // 14 hours before midnight UTC is before that date begins in every zone.
  let after = new Date(Date.parse(`${date}T00:00:00Z`) - 14 * 3600_000);
  for (let i = 0; i < 64; i++) {
    const next = nextRunAfter(expr, tz, after);
    const day = dateIn(tz, next);
    if (day === date) return next;
    if (day > date) return undefined;
    after = next;
  }
  return undefined;
}
