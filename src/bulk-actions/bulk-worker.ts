import { startPollingLoop } from '../background/index.js';
import type { BulkJobRow, Repositories } from '../db/index.js';
import { AppError } from '../domain/index.js';
import type { PaymentRequestCommands, TenantContext } from '../payment-requests/index.js';

/** What the worker needs: the repositories and the one command facade (no page writes a status). */
export interface BulkContext {
  repos: Repositories;
  commands: PaymentRequestCommands;
}

export interface BulkLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

const LEASE_SECONDS = 300;
const POLL_MS = 1000;

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
 * Runs one claimed job: the confirmed capture, release or refund of one request, through the same
 * commands as the API and the detail page. Its outcome is the job's alone: a refusal or an
 * error never stops or undoes the other rows of the batch.
 */
async function runJob(ctx: BulkContext, job: BulkJobRow): Promise<void> {
  const actor = { source: 'admin' as const, actor: job.username };
  let state: 'done' | 'refused' | 'in_doubt' | 'failed' = 'done';
  let reason: string | null = null;
  let reasonCode: string | null = null;
  try {
    const t = await tenantContext(ctx.repos, job.tenant_id);
    // The scope the user had when queuing still holds: a tenant user's job acts on that tenant only.
    if (!t || (job.user_tenant_id !== null && job.user_tenant_id !== job.tenant_id)) {
      throw new AppError('not_found', 404, 'Payment request not found');
    }
    // The job names its operation: run again after its worker died (the lease ran out), it
    // finds its own move by this key and reports it done, never refused by the status it left.
    const once = { retryKey: `bulk:${job.id}` };
    // Exactly the amount the user confirmed: if the request moved on since (less held, less
    // left to refund), the command refuses rather than move another amount.
    const amount = job.amount === null ? undefined : job.amount / 100;
    if (job.action === 'capture') await ctx.commands.capture(t, job.payment_request_id, amount, actor, once);
    else if (job.action === 'release') await ctx.commands.release(t, job.payment_request_id, actor, once);
    else await ctx.commands.refund(t, job.payment_request_id, amount, actor, once);
  } catch (err) {
    if (err instanceof AppError) {
      state = err.code === 'outcome_unknown' ? 'in_doubt' : 'refused';
      reason = err.message;
      reasonCode = err.code;
    } else {
      state = 'failed';
      reason = 'unexpected error; see the service log';
      throw Object.assign(err as Error, { bulkJob: job.id });
    }
  } finally {
    await ctx.repos.bulkJobs.finish(job.id, state, reason, reasonCode);
    await ctx.repos.audit.record({
      username: job.username,
      tenantId: job.tenant_id,
      ip: job.ip,
      action: `bulk_${job.action}`,
      target: job.batch_id,
      paymentRequestId: job.payment_request_id,
      outcome: state === 'done' ? 'ok' : state,
      detail: { ...(job.amount !== null ? { amount: job.amount } : {}), ...(reason ? { reason } : {}) },
    });
  }
}

/** Runs up to `limit` queued jobs, one at a time; returns how many it ran. */
export async function runBulkJobs(ctx: BulkContext, limit: number, log?: BulkLog): Promise<number> {
  let ran = 0;
  while (ran < limit) {
    const job = await ctx.repos.bulkJobs.claim(LEASE_SECONDS);
    if (!job) break;
    ran++;
    try {
      await runJob(ctx, job);
    } catch (err) {
      log?.error({ err: err instanceof Error ? err.message : String(err), job: job.id }, 'bulk job failed');
    }
  }
  return ran;
}

/** The worker `serve` starts (unless WORKERS=off): polls the queue, one job at a time. */
export function startBulkWorker(ctx: BulkContext, log: BulkLog): { stop(): Promise<void> } {
  const batch = 20;
  return startPollingLoop({
    intervalMs: POLL_MS,
    round: async () => (await runBulkJobs(ctx, batch, log)) === batch,
    onError: (err) => log.error({ err: err instanceof Error ? err.message : String(err) }, 'bulk queue round failed'),
  });
}
