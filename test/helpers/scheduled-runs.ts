import type { AppContext } from '../../src/context.ts';
import { type JobKindOptions, SCHEDULED_JOB_NAMES, scheduledJobKind } from '../../src/jobs/index.ts';
import { runDueJobs as runQueueRound, type ScheduledJobName } from '../../src/queue/index.ts';

/**
 * What the queue's worker does with queued runs of scheduled jobs, once, in the test's own
 * time: every due run of every scheduled kind (or of `only`) claimed and run to its end.
 * Answers the outcomes. `jobs`: stand-ins for the real jobs.
 */
export async function runQueuedJobs(
  ctx: AppContext,
  opts: JobKindOptions & { only?: readonly ScheduledJobName[] } = {},
): Promise<string[]> {
  const outcomes: string[] = [];
  for (const name of opts.only ?? SCHEDULED_JOB_NAMES) {
    const kind = scheduledJobKind(async () => ctx, ctx.repos, name, opts);
    outcomes.push(...(await runQueueRound(ctx.db, kind)));
  }
  return outcomes;
}
