import type { CommandContext, Outcome } from './command-context.js';

/** A scheduled job as `payreq job run NAME` sees it. */
export interface CliJob {
  /** As in DESIGN.md 4, e.g. `create_deferred_payments`. */
  name: string;
  summary: string;
  /**
   * Runs the job once, now, as if today were `date` (YYYY-MM-DD; undefined: the real today),
   * and says what it did. Its slot claim keeps it from running twice with the scheduler.
   */
  run(ctx: CommandContext, opts: { date: string | undefined }): Promise<Outcome>;
}

/**
 * The jobs the CLI can run by name. None exists yet: when jobs/ lands, list each of its jobs
 * here (an import and an entry), and `job run` and its help pick them up.
 */
export const JOBS: readonly CliJob[] = [];
