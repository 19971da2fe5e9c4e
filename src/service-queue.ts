import { bulkJobKind } from './bulk-actions/index.ts';
import type { AppContext } from './context.ts';
import { SCHEDULED_JOB_NAMES, scheduledJobKind } from './jobs/index.ts';
import { type MailLog, mailWorkerKind } from './mail/index.ts';
import { pmsJobKind } from './pms/index.ts';
import { type JobKind, type QueueWorker, startQueueWorker } from './queue/index.ts';
import { webhookJobKind } from './webhooks/index.ts';

/**
 * The one background worker of an instance (WORKERS=on): every kind of queued work, each in
 * its own slots (docs/queue.md). `extraKinds`: kinds of a part registered only sometimes (the
 * sandbox's notifications, when the sandbox is a provider).
 */
export async function startServiceQueue(
  ctx: AppContext,
  log: MailLog,
  extraKinds: readonly JobKind[] = [],
  pollMs?: number,
): Promise<QueueWorker> {
  const mail = await mailWorkerKind(ctx, log);
  const webhooks = webhookJobKind(ctx, {
    retryBaseMs: ctx.config.webhookRetryBaseMs,
    allowPrivate: ctx.config.webhooksAllowPrivate,
    log,
  });
  // Every scheduled job's runs, scheduled or by hand: a kind each, one run at a time per instance.
  const scheduled = SCHEDULED_JOB_NAMES.map((name) =>
    scheduledJobKind(async () => ctx, ctx.repos, name, {
      leaseSeconds: ctx.config.jobLeaseSeconds,
      onRun: (r) => {
        ctx.metrics.jobRun(r.job, r.outcome, r.seconds);
        const about = { job: r.job, run: r.run, date: r.date, attempt: r.attempt, seconds: r.seconds };
        if (r.outcome === 'ok') log.info({ ...about, counts: r.counts }, 'scheduled job done');
        else log.error({ ...about, error: r.error }, 'scheduled job failed');
      },
    }),
  );
  const worker = startQueueWorker({
    db: ctx.db,
    kinds: [mail.kind, webhooks, bulkJobKind(ctx, log), pmsJobKind(ctx, log), ...scheduled, ...extraKinds],
    log,
    pollMs,
  });
  return {
    wake: () => worker.wake(),
    async stop() {
      await worker.stop();
      mail.close();
    },
  };
}
