import { digestPayload } from '../day-plan/index.ts';
import type { Repositories } from '../db/index.ts';
import type { RemittancesRepository } from '../payouts/index.ts';

export interface DigestsResult {
  now: string;
  queued: number;
  /** Tenants whose hour has not come yet today, in their zone. */
  waiting: number;
  /** Tenants whose digest of today was queued before (by an earlier run or another instance). */
  already: number;
}

/** The hour (0-23) of `at` in `timeZone`. */
function localHour(timeZone: string, at: Date): number {
  const h = new Intl.DateTimeFormat('en', { timeZone, hour: '2-digit', hourCycle: 'h23' }).format(at);
  return Number(h);
}

/**
 * `send_daily_digests` (hourly): for each tenant with the digest on and a contact address,
 * once its `digest_hour` has come in its own time zone, queues the digest of its local day:
 * one per tenant per local day (the outbox cause names both, so a later run, another instance
 * or a catch-up after an outage finds it queued). Its content is computed here, at `now`.
 */
export async function sendDailyDigests(
  ctx: {
    repos: Pick<Repositories, 'dayPlan' | 'books'> & { remittances: Pick<RemittancesRepository, 'notPaidOut'> };
    inDoubtGraceSeconds: number;
    /** SETTLEMENT_DELAY_DAYS: money older than this that no remittance holds is listed (default 3). */
    settlementDelayDays?: number;
  },
  now: Date,
): Promise<DigestsResult> {
  const result: DigestsResult = { now: now.toISOString(), queued: 0, waiting: 0, already: 0 };
  for (const t of await ctx.repos.dayPlan.digestTenants()) {
    if (localHour(t.timezone, now) < t.digest_hour) {
      result.waiting++;
      continue;
    }
    const payload = await digestPayload(ctx.repos, { id: t.id, timezone: t.timezone }, now, {
      inDoubtGraceSeconds: ctx.inDoubtGraceSeconds,
      ...(ctx.settlementDelayDays !== undefined ? { settlementDelayDays: ctx.settlementDelayDays } : {}),
    });
    if (await ctx.repos.dayPlan.queueDigest(t.id, payload.plan.today, payload)) result.queued++;
    else result.already++;
  }
  return result;
}
