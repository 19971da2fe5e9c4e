import { signInThrottle } from '../admin-users/index.ts';
import type { Database, Repositories } from '../db/index.ts';
import { createDeferredPayments, type HoldRepositories, renewHolds } from '../holds/index.ts';
import type { Reconciler } from '../money-audit/index.ts';
import { BooksCheckBusy, checkBooks, defaultSince } from '../money-audit/index.ts';
import type { MoneyRunner } from '../payment-requests/index.ts';
import { defaultFetchSince, fetchAllStripePayouts, remittancesRepository } from '../payouts/index.ts';
import type { ProviderRegistry } from '../providers/index.ts';
import type { ScheduledJobName } from '../queue/index.ts';
import type { SecretBox } from '../secrets/index.ts';
import { analyzeTables } from './analyze-tables.ts';
import { sendDailyDigests } from './daily-digests.ts';
import { expirePaymentRequests } from './expire-payment-requests.ts';
import { expiryRepository } from './expiry-repository.ts';
import { sendPaymentReminders } from './payment-reminders.ts';
import { purgeEvents } from './purge-events.ts';
import { reconcileClaims } from './reconcile-claims.ts';
import { dateIn } from './schedule-times.ts';

/** What the scheduled jobs need from the service: its database, repositories, money runner and card vault. */
export interface JobsContext {
  db: Database;
  repos: Repositories;
  /** The hold jobs' own SQL. */
  holds: HoldRepositories;
  runner: MoneyRunner;
  reconciler: Reconciler;
  cardTokens: SecretBox;
  /** Each tenant's provider: the books check asks it for its view of each order. */
  providers: ProviderRegistry;
  /**
   * The digest lists operations in doubt as the Books page does (IN_DOUBT_GRACE_SECONDS), and
   * money not paid out past SETTLEMENT_DELAY_DAYS as the Payouts page does.
   */
  config?: { inDoubtGraceSeconds: number; settlementDelayDays?: number };
  /** Scheduled runs counted by job and outcome, where the service keeps metrics. */
  metrics?: { jobRun(job: string, outcome: 'ok' | 'failed', seconds: number): void };
}

/**
 * The day a run is for and, for a run made for a given day (`payreq job run NAME --date D`), the
 * sandbox's test clock: the moment D's scheduled run happens, which the sandbox stamps on what
 * it does (real providers live in real time). Unset: the day at `now` in the schedule's zone.
 */
export interface RunFor {
  date?: string;
  testClock?: Date;
}

/**
 * A job the scheduler can run: given the service, the moment of the run, the schedule's time
 * zone and the day it is for, does its work and returns counts for the run history.
 */
export type ScheduledJob = (
  ctx: JobsContext,
  now: Date,
  timezone: string,
  run?: RunFor,
) => Promise<Record<string, unknown>>;

/**
 * What a run made for a given day D stands for, per job: `hold_day`, D's due requests, at D's
 * scheduled moment on the sandbox's test clock; `end_of_day`, as of the last moment of D (every
 * deadline on or before it has passed); `noon_utc`, as of noon UTC on D (that date in every
 * hotel's zone from UTC-11 to UTC+11); `none`, the job has no day: it runs as of now.
 */
export type RunDay = 'hold_day' | 'end_of_day' | 'noon_utc' | 'none';

export const RUN_DAY: Readonly<Record<ScheduledJobName, RunDay>> = {
  create_deferred_payments: 'hold_day',
  renew_holds: 'hold_day',
  expire_payment_requests: 'end_of_day',
  send_payment_reminders: 'end_of_day',
  send_daily_digests: 'noon_utc',
  purge_events: 'none',
  reconcile_claims: 'none',
  books_check: 'none',
  purge_idempotency_keys: 'none',
  analyze_tables: 'none',
  purge_admin_sessions: 'none',
  fetch_payouts: 'none',
};

export const SCHEDULED_JOB_NAMES = Object.keys(RUN_DAY) as ScheduledJobName[];

export function isScheduledJobName(name: string): name is ScheduledJobName {
  return Object.hasOwn(RUN_DAY, name);
}

/** The jobs by the name their schedule row carries (the rows are seeded by the migrations). */
export const SCHEDULED_JOBS: Readonly<Record<ScheduledJobName, ScheduledJob>> = {
  // "Today" is the date where the hotel is, not where the server is.
  create_deferred_payments: async (ctx, now, timezone, run) => ({
    ...(await createDeferredPayments(
      { holds: ctx.holds.deferred, runner: ctx.runner, cardTokens: ctx.cardTokens },
      run?.date ?? dateIn(timezone, now),
      run?.testClock ? { at: run.testClock } : {},
    )),
  }),
  // After the holds before arrival: the live holds that would lapse before the hotel decides.
  renew_holds: async (ctx, now, timezone, run) => ({
    ...(await renewHolds(
      { renewals: ctx.holds.renewals, runner: ctx.runner, cardTokens: ctx.cardTokens },
      run?.date ?? dateIn(timezone, now),
      run?.testClock ? { at: run.testClock } : {},
    )),
  }),
  // A link never expires before its own end in real time, whatever moment the run is for.
  expire_payment_requests: async (ctx, now) => ({
    ...(await expirePaymentRequests({ expiry: expiryRepository(ctx.db) }, now, { linksUntil: new Date() })),
  }),
  purge_events: async (ctx) => ({ ...(await purgeEvents(ctx.repos)) }),
  reconcile_claims: async (ctx) => {
    const r = await reconcileClaims(ctx.reconciler);
    // The run history keeps counts; the mismatches are named (by reference) for the operator.
    return { ...r, mismatches: r.mismatches.slice(0, 50) };
  },
  // Every tenant's orders whose ledger moved in the last 7 days, against the provider's view;
  // a run stopped before its end is carried on by the next, from where it stopped.
  books_check: async (ctx, now) => {
    let r: Awaited<ReturnType<typeof checkBooks>>;
    try {
      r = await checkBooks({ repos: ctx.repos, providers: ctx.providers }, { since: defaultSince(now) });
    } catch (err) {
      // An operator's `payreq books check` of every tenant is under way: it does this run's work.
      if (err instanceof BooksCheckBusy) return { busy: true, leased_until: err.leasedUntil.toISOString() };
      throw err;
    }
    return {
      since: r.since.toISOString(),
      ...r.summary,
      complete: r.complete,
      resumed: r.resumed,
      asked: r.asked,
      incidents_opened: r.opened,
      // The run history names what does not agree (by reference), for the operator.
      problems: r.problems
        .slice(0, 50)
        .map((p) => `${p.detail.reference ?? p.detail.payment_request_id}: ${p.verdict}`),
    };
  },
  send_payment_reminders: async (ctx, now) => ({
    ...(await sendPaymentReminders({ dayPlan: ctx.repos.dayPlan }, now)),
  }),
  // Hourly: each tenant's digest once its own hour has come in its own zone (not the schedule's).
  send_daily_digests: async (ctx, now) => ({
    ...(await sendDailyDigests(
      {
        repos: { ...ctx.repos, remittances: remittancesRepository(ctx.db) },
        inDoubtGraceSeconds: ctx.config?.inDoubtGraceSeconds ?? 120,
        settlementDelayDays: ctx.config?.settlementDelayDays ?? 3,
      },
      now,
    )),
  }),
  // An Idempotency-Key replays its first answer for 24 hours; after that its row is dead weight.
  purge_idempotency_keys: async (ctx) => ({ purged: await ctx.repos.idempotency.purgeExpired() }),
  // Nightly: the planner's statistics, which nothing else keeps on PGlite.
  analyze_tables: async (ctx) => ({ ...(await analyzeTables(ctx.repos)) }),
  // Expired back-office sessions already read as absent; their rows go, with the sign-in
  // throttle's keys nobody has failed on for a day.
  purge_admin_sessions: async (ctx, now) => ({
    sessions: await ctx.repos.adminSessions.purgeExpired(),
    throttle_keys: await signInThrottle(ctx.repos.signInThrottle).purge(now),
  }),
  // Daily: every Stripe hotel's payouts of the last days that are not stored yet; one hotel's
  // failure is counted and named, the others go on.
  fetch_payouts: async (ctx, now) => ({
    ...(await fetchAllStripePayouts(
      { db: ctx.db, providers: ctx.providers, accounts: ctx.repos.providerAccounts },
      defaultFetchSince(now),
    )),
  }),
};
