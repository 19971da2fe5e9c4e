import type { BooksIncidentRow, DayPlanRow, DayTotals, InDoubtOperationRow, Repositories } from '../db/index.ts';
import { addDays, localDate } from '../domain/index.ts';
import { lapsesBeforeDecision } from '../holds/index.ts';
import type { NotPaidOutRow, RemittancesRepository } from '../payouts/index.ts';

/** Rows a list shows at most: the page and the e-mail say when there are more. */
export const LIST_LIMIT = 100;
/** A hold ending within this is "about to lapse". */
export const LAPSE_WINDOW_MS = 24 * 3600 * 1000;
/** A failed guarantee stays on the hotel's day this long after the job failed it. */

/**
 * What needs someone at a hotel today, in its own time zone: the Today page shows it and the
 * daily digest e-mails it (with yesterday's totals). Computed at `now`, so a test, like the
 * digest job, decides the moment.
 */
export interface DayPlan {
  tenantId: string;
  timeZone: string;
  now: Date;
  /** `YYYY-MM-DD` in the hotel's zone. */
  today: string;
  tomorrow: string;
  failedGuarantees: DayPlanRow[];
  /**
   * Holds the bank declined softly before the check-in day: tried again each morning, final on
   * the check-in day. Absent from digests queued before they were listed.
   */
  declinedHolds?: DayPlanRow[];
  /** Holds ending within 24 hours, before the hotel's decision (check-out, or the day after check-in). */
  lapsingHolds: DayPlanRow[];
  arrivalsToday: DayPlanRow[];
  arrivalsTomorrow: DayPlanRow[];
  incidents: BooksIncidentRow[];
  inDoubt: InDoubtOperationRow[];
}

export interface DayPlanTenant {
  id: string;
  timezone: string;
}

export async function dayPlan(
  repos: Pick<Repositories, 'dayPlan' | 'books'>,
  tenant: DayPlanTenant,
  now: Date,
  opts: { inDoubtGraceSeconds: number },
): Promise<DayPlan> {
  const today = localDate(tenant.timezone, now);
  const tomorrow = addDays(today, 1);
  const [failed, declined, ending, arrivals, incidents, inDoubt] = await Promise.all([
    repos.dayPlan.failedGuarantees(tenant.id, LIST_LIMIT),
    repos.dayPlan.declinedHolds(tenant.id, LIST_LIMIT),
    repos.dayPlan.holdsEnding(tenant.id, now, new Date(now.getTime() + LAPSE_WINDOW_MS), LIST_LIMIT),
    repos.dayPlan.arrivals(tenant.id, [today, tomorrow], 2 * LIST_LIMIT),
    repos.books.openIncidents(tenant.id, LIST_LIMIT),
    repos.books.inDoubtOperations(tenant.id, opts.inDoubtGraceSeconds, LIST_LIMIT),
  ]);
  return {
    tenantId: tenant.id,
    timeZone: tenant.timezone,
    now,
    today,
    tomorrow,
    failedGuarantees: failed,
    declinedHolds: declined,
    // The daily renewal replaces a hold the day before it would lapse: one still here, ending
    // before the decision, was not renewed (no date to decide by, a refusal, a run that failed).
    lapsingHolds: ending.filter(
      (r) => r.hold_expires_at !== null && lapsesBeforeDecision(new Date(r.hold_expires_at), r, tenant.timezone),
    ),
    arrivalsToday: arrivals.filter((r) => r.checkin === today),
    arrivalsTomorrow: arrivals.filter((r) => r.checkin === tomorrow),
    incidents,
    inDoubt,
  };
}

/**
 * Money no imported remittance holds, past the settlement delay (docs/payouts.md): null before
 * the hotel's first remittance (a hotel that imports none is not told every payment is missing).
 */
export interface NotPaidOut {
  delayDays: number;
  count: number;
  rows: Pick<NotPaidOutRow, 'payment_request_id' | 'reference' | 'kind' | 'amount' | 'currency' | 'created_at'>[];
}

/** The digest's content: the day plan and yesterday's totals, as stored in the outbox (JSON). */
export interface DigestPayload {
  plan: DayPlan;
  yesterday: string;
  totals: DayTotals;
  /** Absent from digests queued before payouts were kept. */
  notPaidOut?: NotPaidOut | null;
}

export async function digestPayload(
  repos: Pick<Repositories, 'dayPlan' | 'books'> & { remittances: Pick<RemittancesRepository, 'notPaidOut'> },
  tenant: DayPlanTenant,
  now: Date,
  opts: { inDoubtGraceSeconds: number; settlementDelayDays?: number },
): Promise<DigestPayload> {
  const plan = await dayPlan(repos, tenant, now, opts);
  const yesterday = addDays(plan.today, -1);
  const totals = await repos.dayPlan.dayTotals(tenant.id, yesterday, tenant.timezone);
  const delayDays = opts.settlementDelayDays ?? 3;
  const missing = await repos.remittances.notPaidOut(
    tenant.id,
    new Date(now.getTime() - delayDays * 24 * 3600 * 1000),
    LIST_LIMIT,
  );
  const notPaidOut =
    missing.since === null
      ? null
      : {
          delayDays,
          count: missing.count,
          rows: missing.rows.map((r) => ({
            payment_request_id: r.payment_request_id,
            reference: r.reference,
            kind: r.kind,
            amount: r.amount,
            currency: r.currency,
            created_at: r.created_at,
          })),
        };
  return { plan, yesterday, totals, notPaidOut };
}
