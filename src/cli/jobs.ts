import {
  analyzeTables,
  createDeferredPayments,
  dateIn,
  expirePaymentRequests,
  purgeEvents,
  reconcileClaims,
  renewHolds,
  SCHEDULED_JOBS,
  scheduledMomentOn,
  sendDailyDigests,
  sendPaymentReminders,
} from '../jobs/index.ts';
import type { CommandContext, Outcome } from './command-context.ts';

/**
 * The service's context (providers, mail, metrics) for a job run by a command. Imported when a
 * job runs, not when any command starts: other commands need none of it.
 */
export async function serviceContext(ctx: CommandContext) {
  const { buildContext } = await import('../context.ts');
  return buildContext({ config: ctx.config, db: ctx.db });
}

/** A scheduled job as `payreq job run NAME` sees it. */
export interface CliJob {
  /** The job's name on the command line, e.g. `create_deferred_payments`. */
  name: string;
  summary: string;
  /**
   * Runs the job once, now, as if today were `date` (YYYY-MM-DD; undefined: the real today),
   * and says what it did. Its slot claim keeps it from running twice with the scheduler.
   */
  run(ctx: CommandContext, opts: { date: string | undefined }): Promise<Outcome>;
}

/** Today's date where the service runs, as `YYYY-MM-DD` ('sv' formats dates that way). */
function today(): string {
  return new Date().toLocaleDateString('sv');
}

/**
 * Today where a scheduled job's schedule says, as its scheduled runs read it: a run by hand just
 * after midnight in the hotel's zone (still yesterday on a UTC host) looks at the same check-ins
 * as the scheduled run of that night, not a day behind. The process's own date if the job has
 * no schedule row.
 */
async function scheduleToday(ctx: CommandContext, job: string): Promise<string> {
  const schedule = await ctx.repos.schedules.get(job);
  return schedule ? dateIn(schedule.timezone, new Date()) : today();
}

/**
 * The sandbox's test clock for a run made for `date` (`--date`): that day's scheduled moment of
 * the job, in its schedule's zone (noon UTC without a schedule row). The sandbox stamps the holds
 * and releases of the run with it, so a stay can be played day by day; Lyra lives in real time.
 */
async function testClock(ctx: CommandContext, job: string, date: string | undefined): Promise<Date | undefined> {
  if (!date) return undefined;
  const schedule = await ctx.repos.schedules.get(job);
  return (
    (schedule ? scheduledMomentOn(schedule.cron, schedule.timezone, date) : undefined) ?? new Date(`${date}T12:00:00Z`)
  );
}

/**
 * The moment `--date` stands for in a job that works with instants: the end of that day in the
 * process's time zone (the same zone `today()` reads), so `--date` expires everything whose
 * deadline falls on or before that day.
 */
function endOfDay(date: string): Date {
  return new Date(`${date}T23:59:59.999`);
}

/** The jobs the CLI can run by name; `job run` and its help list them. */
export const JOBS: readonly CliJob[] = [
  {
    name: 'create_deferred_payments',
    summary: 'place the holds of imprints whose check-in is within 2 days',
    async run(ctx, { date }) {
      // Inside the service, its own context; from the CLI alone, one built on the CLI's database.
      const app = ctx.app ?? (await serviceContext(ctx));
      const at = await testClock(ctx, 'create_deferred_payments', date);
      const r = await createDeferredPayments(
        { holds: ctx.repos.deferredHolds, runner: app.runner, cardTokens: app.cardTokens },
        date ?? (await scheduleToday(ctx, 'create_deferred_payments')),
        at ? { at } : {},
      );
      return {
        json: { job: 'create_deferred_payments', ...r },
        text:
          `create_deferred_payments for ${r.date} (check-in ${r.window.from} to ${r.window.to}): ` +
          `${r.considered} due, ${r.held} held, ${r.refused} refused, ${r.failed} failed (retried next run), ` +
          `${r.in_doubt} in doubt (settled by reconcile_claims), ${r.skipped} skipped\n`,
      };
    },
  },
  {
    name: 'renew_holds',
    summary: 'renew the holds that would lapse before the hotel decides (check-out), before they do',
    async run(ctx, { date }) {
      const app = ctx.app ?? (await serviceContext(ctx));
      const at = await testClock(ctx, 'renew_holds', date);
      const r = await renewHolds(
        { renewals: ctx.repos.holdRenewals, runner: app.runner, cardTokens: app.cardTokens },
        date ?? (await scheduleToday(ctx, 'renew_holds')),
        at ? { at } : {},
      );
      return {
        json: { job: 'renew_holds', ...r },
        text:
          `renew_holds for ${r.date}: ${r.due} due, ${r.renewed} renewed, ${r.refused} refused (guarantee failed), ` +
          `${r.in_doubt} in doubt (settled by reconcile_claims), ${r.failed} failed (retried next run), ` +
          `${r.skipped} skipped, ${r.released} replaced holds released\n`,
      };
    },
  },
  {
    name: 'expire_payment_requests',
    summary: 'expire holds past their end and links past their lifetime (--date: as of the end of that day)',
    async run(ctx, { date }) {
      const r = await expirePaymentRequests({ expiry: ctx.repos.expiry }, date ? endOfDay(date) : new Date());
      return {
        json: { job: 'expire_payment_requests', ...r },
        text: `expire_payment_requests as of ${r.now}: ${r.holds_expired} holds expired, ${r.links_expired} links expired\n`,
      };
    },
  },
  {
    name: 'send_payment_reminders',
    summary: 'queue the reminders of unpaid links whose slot has come (--date: as of the end of that day)',
    async run(ctx, { date }) {
      const r = await sendPaymentReminders({ dayPlan: ctx.repos.dayPlan }, date ? endOfDay(date) : new Date());
      return {
        json: { job: 'send_payment_reminders', ...r },
        text: `send_payment_reminders as of ${r.now}: ${r.queued} reminders queued\n`,
      };
    },
  },
  {
    name: 'send_daily_digests',
    summary: "queue each tenant's daily digest whose hour has come in its zone (--date: as of noon UTC that day)",
    async run(ctx, { date }) {
      // Noon UTC falls on that date in every hotel's zone from UTC-11 to UTC+11.
      const r = await sendDailyDigests(
        {
          repos: ctx.repos,
          inDoubtGraceSeconds: ctx.config.inDoubtGraceSeconds,
          settlementDelayDays: ctx.config.settlementDelayDays,
        },
        date ? new Date(`${date}T12:00:00Z`) : new Date(),
      );
      return {
        json: { job: 'send_daily_digests', ...r },
        text: `send_daily_digests as of ${r.now}: ${r.queued} queued, ${r.already} queued before, ${r.waiting} waiting for their hour\n`,
      };
    },
  },
  {
    name: 'purge_events',
    summary: 'delete delivered webhook log rows after 30 days and events after 90 days',
    async run(ctx) {
      const r = await purgeEvents(ctx.repos);
      return {
        json: { job: 'purge_events', ...r },
        text: `purge_events: ${r.deliveries} delivered webhook log rows and ${r.events} events deleted\n`,
      };
    },
  },
  {
    name: 'analyze_tables',
    summary: "refresh the query planner's statistics of every table (PGlite has no autovacuum to do it)",
    async run(ctx) {
      const r = await analyzeTables(ctx.repos);
      return {
        json: { job: 'analyze_tables', ...r },
        text: `analyze_tables: ${r.tables} tables analyzed in ${r.ms} ms\n`,
      };
    },
  },
  {
    name: 'reconcile_claims',
    summary: "settle operations in doubt by the provider's view, give back misplaced money, check the books",
    async run(ctx) {
      const app = ctx.app ?? (await serviceContext(ctx));
      const r = await reconcileClaims(app.reconciler);
      const mismatches = r.mismatches.map((m) => `  ${m.reference ?? m.payment_request_id}: ${m.problem}\n`).join('');
      return {
        json: { job: 'reconcile_claims', ...r },
        text:
          `reconcile_claims: ${r.examined} open operations, ${r.settled} settled as done, ${r.refused} as refused, ` +
          `${r.not_done} as not done, ` +
          `${r.unknown} still in doubt, ${r.given_back} given back, ${r.claims_released} claims freed, ` +
          `${r.accounts_found} old rows given their account; ` +
          `${r.checked} of ${r.touched} requests touched in the window checked ` +
          `(${r.check_complete ? 'complete' : 'the next run carries on'}), ${r.mismatches.length} mismatches\n${mismatches}`,
      };
    },
  },
  {
    name: 'books_check',
    summary: "every tenant's orders moved in the last 7 days against the provider's view (see payreq books check)",
    async run(ctx) {
      const app = ctx.app ?? (await serviceContext(ctx));
      const job = SCHEDULED_JOBS.books_check;
      if (!job) throw new Error('books_check is not a scheduled job of this version');
      const r = await job(app, new Date(), 'UTC');
      return { json: { job: 'books_check', ...r }, text: `books_check: ${JSON.stringify(r)}\n` };
    },
  },
];
