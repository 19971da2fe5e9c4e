import { bulkJobKind } from './bulk-actions/index.ts';
import type { AppContext } from './context.ts';
import { type MailLog, mailWorkerKind } from './mail/index.ts';
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
): Promise<QueueWorker> {
  const mail = await mailWorkerKind(ctx, log);
  const webhooks = webhookJobKind(ctx, {
    retryBaseMs: ctx.config.webhookRetryBaseMs,
    allowPrivate: ctx.config.webhooksAllowPrivate,
    log,
  });
  const worker = startQueueWorker({
    db: ctx.db,
    kinds: [mail.kind, webhooks, bulkJobKind(ctx, log), ...extraKinds],
    log,
  });
  return {
    wake: () => worker.wake(),
    async stop() {
      await worker.stop();
      mail.close();
    },
  };
}
