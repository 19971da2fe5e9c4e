import { signInThrottle } from '../admin-users/index.ts';
import { BooksCheckBusy, checkBooks, defaultSince } from '../books/index.ts';
import type { Database, Repositories } from '../db/index.ts';
import type { MoneyRunner, Reconciler } from '../payment-requests/index.ts';
import type { ProviderRegistry } from '../providers/index.ts';
import type { SecretBox } from '../secrets/index.ts';
import { analyzeTables } from './analyze-tables.ts';
import { createDeferredPayments } from './create-deferred-payments.ts';
import { sendDailyDigests } from './daily-digests.ts';
import { expirePaymentRequests } from './expire-payment-requests.ts';
import { sendPaymentReminders } from './payment-reminders.ts';
import { purgeEvents } from './purge-events.ts';
import { reconcileClaims } from './reconcile-claims.ts';
import { renewHolds } from './renew-holds.ts';
import { dateIn } from './schedule-times.ts';

/** What the scheduled jobs need from the service: its database, repositories, money runner and card vault. */
export interface JobsContext {
  db: Database;
  repos: Repositories;
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
}

/**
 * A job the scheduler can run: given the service, the moment of the run and the schedule's time
 * zone, does its work and returns counts for the run history.
 */
export type ScheduledJob = (ctx: JobsContext, now: Date, timezone: string) => Promise<Record<string, unknown>>;

/** The jobs by the name their schedule row carries (the rows are seeded by the migrations). */
export const SCHEDULED_JOBS: Readonly<Record<string, ScheduledJob>> = {
  // "Today" is the date where the hotel is, not where the server is.
  create_deferred_payments: async (ctx, now, timezone) => ({
    ...(await createDeferredPayments(
      { holds: ctx.repos.deferredHolds, runner: ctx.runner, cardTokens: ctx.cardTokens },
      dateIn(timezone, now),
    )),
  }),
  // After the holds before arrival: the live holds that would lapse before the hotel decides.
  renew_holds: async (ctx, now, timezone) => ({
    ...(await renewHolds(
      { renewals: ctx.repos.holdRenewals, runner: ctx.runner, cardTokens: ctx.cardTokens },
      dateIn(timezone, now),
    )),
  }),
  expire_payment_requests: async (ctx, now) => ({
    ...(await expirePaymentRequests({ expiry: ctx.repos.expiry }, now)),
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
        repos: ctx.repos,
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
};
