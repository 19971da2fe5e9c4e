import { auditRepository, type BulkJobRow, bulkJobsRepository, type Database, type Repositories } from '../db/index.ts';
import { AppError, isMoneyReason, moveReason } from '../domain/index.ts';
import type { PaymentRequestCommands, TenantContext } from '../payment-requests/index.ts';
import { type JobKind, runDueJobs } from '../queue/index.ts';

/** What the worker needs: the repositories and the one command facade (no page writes a status). */
export interface BulkContext {
  db: Database;
  repos: Repositories;
  commands: PaymentRequestCommands;
}

export interface BulkLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * A job is never retried for its outcome (a refusal or an error is the job's result); it runs
 * again only when its worker died and the lease ran out, and its money command, carrying the
 * job's key, then finds the move it already made.
 */
const LEASE_MS = 300_000;

export type BulkOutcome = 'done' | 'refused' | 'in_doubt' | 'failed';

async function tenantContext(repos: Repositories, tenantId: string): Promise<TenantContext | undefined> {
  const t = await repos.tenants.find(tenantId);
  return (
    t && {
      tenantId: t.id,
      timezone: t.timezone,
      linkLifetimeDays: t.link_lifetime_days,
      confirmationEmail: t.confirmation_email,
    }
  );
}

/**
 * The confirmed capture, release or refund of one request, through the same commands as the
 * API and the detail page. Its outcome is the job's alone: a refusal or an error never stops or
 * undoes the other rows of the batch.
 */
async function moveMoney(
  ctx: BulkContext,
  job: BulkJobRow,
): Promise<{ state: BulkOutcome; reason: string | null; code: string | null }> {
  const actor = { source: 'admin' as const, actor: job.username };
  try {
    const t = await tenantContext(ctx.repos, job.tenant_id);
    // The scope the user had when queuing still holds: a tenant user's job acts on that tenant only.
    if (!t || (job.user_tenant_id !== null && job.user_tenant_id !== job.tenant_id)) {
      throw new AppError('not_found', 404, 'Payment request not found');
    }
    // The job names its operation: run again after its worker died (the lease ran out), it
    // finds its own move by this key and reports it done, never refused by the status it left.
    // The reason and note the user gave the batch go with each move, as a single move's do.
    const why = moveReason(isMoneyReason(job.move_reason) ? job.move_reason : undefined, job.move_note);
    const once = { retryKey: `bulk:${job.id}`, why };
    // Exactly the amount the user confirmed: if the request moved on since (less held, less
    // left to refund), the command refuses rather than move another amount.
    const amount = job.amount === null ? undefined : job.amount / 100;
    if (job.action === 'capture') await ctx.commands.capture(t, job.payment_request_id, amount, actor, once);
    else if (job.action === 'release') await ctx.commands.release(t, job.payment_request_id, actor, once);
    else await ctx.commands.refund(t, job.payment_request_id, amount, actor, once);
    return { state: 'done', reason: null, code: null };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { state: err.code === 'outcome_unknown' ? 'in_doubt' : 'refused', reason: err.message, code: err.code };
  }
}

/** The bulk kind of the queue: one job per selected request, one at a time per instance. */
export function bulkJobKind(ctx: BulkContext, log?: BulkLog): JobKind<BulkOutcome> {
  return {
    name: 'bulk_job',
    policy: { baseMs: 1000, maxMs: 60_000, leaseMs: LEASE_MS },
    concurrency: 1,
    async run(claimed, finish) {
      const job = await bulkJobsRepository(ctx.db).load(claimed.ref);
      if (!job) {
        await finish.done();
        return 'done';
      }
      // Marked running in the queue's fenced step: a worker whose lease was taken writes nothing.
      await finish.keep((tx) => bulkJobsRepository(tx).start(job.id, claimed.attempts));
      let result: Awaited<ReturnType<typeof moveMoney>>;
      try {
        result = await moveMoney(ctx, job);
      } catch (err) {
        log?.error({ err: err instanceof Error ? err.message : String(err), job: job.id }, 'bulk job failed');
        result = { state: 'failed', reason: 'unexpected error; see the service log', code: null };
      }
      const { state, reason, code } = result;
      // The job's result and its audit line, with the job finished: all or nothing.
      await finish.done(async (tx) => {
        await bulkJobsRepository(tx).finish(job.id, state, reason, code);
        await auditRepository(tx).record({
          username: job.username,
          tenantId: job.tenant_id,
          ip: job.ip,
          action: `bulk_${job.action}`,
          target: job.batch_id,
          paymentRequestId: job.payment_request_id,
          outcome: state === 'done' ? 'ok' : state,
          detail: {
            ...(job.amount !== null ? { amount: job.amount } : {}),
            ...(job.move_reason ? { move_reason: job.move_reason } : {}),
            ...(job.move_note ? { move_note: job.move_note } : {}),
            ...(reason ? { reason } : {}),
          },
        });
      });
      return state;
    },
  };
}

/** Runs up to `limit` queued jobs, one at a time, for tests and one-off runs; returns how many it ran. */
export async function runBulkJobs(ctx: BulkContext, limit: number, log?: BulkLog): Promise<number> {
  const kind = bulkJobKind(ctx, log);
  let ran = 0;
  while (ran < limit) {
    const outcomes = await runDueJobs(ctx.db, kind, { limit: 1 });
    if (outcomes.length === 0) break;
    ran++;
  }
  return ran;
}
