import type { JobRunRow } from '../db/index.ts';
import { RunRefused, runJobNow, SCHEDULED_JOB_NAMES } from '../jobs/index.ts';
import type { ScheduledJobName } from '../queue/index.ts';
import { CliError } from './cli-error.ts';
import type { CommandContext, Outcome } from './command-context.ts';

/**
 * The service's context (providers, mail, metrics) for a job run by a command. Imported when a
 * job runs, not when any command starts: other commands need none of it.
 */
export async function serviceContext(ctx: CommandContext) {
  const { buildContext } = await import('../context.ts');
  return buildContext({ config: ctx.config, db: ctx.db });
}

type Counts = Record<string, unknown>;
const n = (c: Counts, key: string) => Number(c[key] ?? 0);

/** A scheduled job as `payreq job run NAME` sees it. */
export interface CliJob {
  /** The job's name on the command line, e.g. `create_deferred_payments`. */
  name: ScheduledJobName;
  summary: string;
  /** What a run did, in a line (or a few) for the terminal. */
  describe(counts: Counts): string;
}

/** The jobs the CLI can run by name; `job run` and its help list them. */
export const JOBS: readonly CliJob[] = [
  {
    name: 'create_deferred_payments',
    summary: 'place the holds of imprints whose check-in is within 2 days',
    describe: (r) => {
      const window = (r.window ?? {}) as { from?: string; to?: string };
      return (
        `create_deferred_payments for ${r.date} (check-in ${window.from} to ${window.to}): ` +
        `${n(r, 'considered')} due, ${n(r, 'held')} held, ${n(r, 'refused')} refused, ${n(r, 'declined')} declined (tried again), ` +
        `${n(r, 'failed')} failed (retried next run), ${n(r, 'in_doubt')} in doubt (settled by reconcile_claims), ${n(r, 'skipped')} skipped`
      );
    },
  },
  {
    name: 'renew_holds',
    summary: 'renew the holds that would lapse before the hotel decides (check-out), before they do',
    describe: (r) =>
      `renew_holds for ${r.date}: ${n(r, 'due')} due, ${n(r, 'renewed')} renewed, ${n(r, 'refused')} refused (guarantee failed), ` +
      `${n(r, 'in_doubt')} in doubt (settled by reconcile_claims), ${n(r, 'failed')} failed (retried next run), ` +
      `${n(r, 'skipped')} skipped, ${n(r, 'released')} replaced holds released`,
  },
  {
    name: 'expire_payment_requests',
    summary:
      'expire holds past their end and links past their lifetime (--date: as of the end of that day; a link never before its own end)',
    describe: (r) =>
      `expire_payment_requests as of ${r.now}: ${n(r, 'holds_expired')} holds expired, ${n(r, 'links_expired')} links expired`,
  },
  {
    name: 'send_payment_reminders',
    summary: 'queue the reminders of unpaid links whose slot has come (--date: as of the end of that day)',
    describe: (r) => `send_payment_reminders as of ${r.now}: ${n(r, 'queued')} reminders queued`,
  },
  {
    name: 'send_daily_digests',
    summary: "queue each tenant's daily digest whose hour has come in its zone (--date: as of noon UTC that day)",
    describe: (r) =>
      `send_daily_digests as of ${r.now}: ${n(r, 'queued')} queued, ${n(r, 'already')} queued before, ${n(r, 'waiting')} waiting for their hour`,
  },
  {
    name: 'purge_events',
    summary: 'delete delivered webhook log rows after 30 days and events after 90 days',
    describe: (r) =>
      `purge_events: ${n(r, 'deliveries')} delivered webhook log rows and ${n(r, 'events')} events deleted`,
  },
  {
    name: 'fetch_payouts',
    summary: "fetch every Stripe hotel's paid payouts of the last 30 days not stored yet, and match their lines",
    describe: (r) =>
      `fetch_payouts since ${r.since}: ${n(r, 'hotels')} Stripe hotels (${n(r, 'failed')} failed), ` +
      `${n(r, 'remittances')} payouts stored, ${n(r, 'lines')} lines: ${n(r, 'matched')} matched, ${n(r, 'unmatched')} unmatched`,
  },
  {
    name: 'analyze_tables',
    summary: "refresh the query planner's statistics of every table (PGlite has no autovacuum to do it)",
    describe: (r) => `analyze_tables: ${n(r, 'tables')} tables analyzed in ${n(r, 'ms')} ms`,
  },
  {
    name: 'reconcile_claims',
    summary: "settle operations in doubt by the provider's view, give back misplaced money, check the books",
    describe: (r) => {
      const mismatches = (
        (r.mismatches ?? []) as { reference?: string; payment_request_id?: string; problem?: string }[]
      )
        .map((m) => `  ${m.reference ?? m.payment_request_id}: ${m.problem}\n`)
        .join('');
      return (
        `reconcile_claims: ${n(r, 'examined')} open operations, ${n(r, 'settled')} settled as done, ${n(r, 'refused')} as refused, ` +
        `${n(r, 'not_done')} as not done, ${n(r, 'unknown')} still in doubt, ${n(r, 'given_back')} given back, ` +
        `${n(r, 'claims_released')} claims freed, ${n(r, 'accounts_found')} old rows given their account; ` +
        `${n(r, 'checked')} of ${n(r, 'touched')} requests touched in the window checked ` +
        `(${r.check_complete ? 'complete' : 'the next run carries on'}), ${((r.mismatches ?? []) as unknown[]).length} mismatches\n${mismatches}`
      ).trimEnd();
    },
  },
  {
    name: 'books_check',
    summary: "every tenant's orders moved in the last 7 days against the provider's view (see payreq books check)",
    describe: (r) => `books_check: ${JSON.stringify(r)}`,
  },
];

/** The scheduled jobs `job run` also accepts, with a plain description of what they did. */
const MORE: readonly ScheduledJobName[] = SCHEDULED_JOB_NAMES.filter((name) => !JOBS.some((j) => j.name === name));

export const RUNNABLE: readonly CliJob[] = [
  ...JOBS,
  ...MORE.map((name) => ({
    name,
    summary: 'housekeeping, run daily by the scheduler',
    describe: (r: Counts) => `${name}: ${JSON.stringify(r)}`,
  })),
];

/** Who started a run from here: the command line (inside the service, still the command line). */
const FROM_CLI = 'cli';

/**
 * Runs `job` through the one queue, as of `date` (undefined: today in its schedule's zone), and
 * prints what the run did: this one's, or, when a run of the same job and day was under way,
 * that one's once it ended (exit 0 either way). A failed run is an error (exit 1).
 */
export async function runJobByHand(ctx: CommandContext, job: CliJob, date: string | undefined): Promise<Outcome> {
  let result: { run: JobRunRow; joined: boolean };
  // The counts as the job gave them, when it ran here (the record's JSON keeps no key order).
  let ranHere: Record<string, unknown> | undefined;
  try {
    result = await runJobNow(
      {
        db: ctx.db,
        repos: ctx.repos,
        config: ctx.config,
        context: async () => ctx.app ?? (await serviceContext(ctx)),
        onRun: (r) => {
          ranHere = r.counts;
          ctx.app?.metrics.jobRun(r.job, r.outcome, r.seconds);
        },
      },
      job.name,
      { ...(date ? { date } : {}), startedBy: FROM_CLI },
    );
  } catch (err) {
    if (err instanceof RunRefused) throw new CliError(err.message);
    throw err;
  }
  const { run, joined } = result;
  if (run.outcome !== 'ok') {
    throw new CliError(
      `${job.name} for ${run.run_date}: the run ${joined ? 'under way ' : ''}failed: ${run.error ?? run.outcome}`,
    );
  }
  const counts = ranHere ?? run.counts ?? {};
  const under = joined
    ? `(a run of ${job.name} for ${run.run_date} was under way, started by ${run.started_by ?? 'another process'}: its result)\n`
    : '';
  return { json: { job: job.name, ...counts }, text: `${under}${job.describe(counts)}\n` };
}
