import type { Database, Repositories } from '../db/index.ts';
import type { PaymentRequestCommands } from '../payment-requests/index.ts';
import type { JobKind, QueueLog } from '../queue/index.ts';
import type { SecretKeyRing } from '../secrets/index.ts';
import { pmsRepository } from './pms-repository.ts';
import { type PostingResult, runPostingJob } from './posting-job.ts';
import { type EventResult, runEventJob } from './reservation-events.ts';

/**
 * The queue's kind for the hotel's PMS (docs/queue.md): each posting of a money movement on its
 * Apaleo folio (`posting:<id>`), each reservation event Apaleo delivered (`event:<id>`). Both
 * are enqueued by their table's trigger (migration 0120): a posting in the very statement that
 * records the money as moved, so it is started within a second or two of the commit.
 *
 * The kind keeps its own schedule (src/pms/retry-schedule.ts: the first retry within 2 s, 30 s
 * at most in the first hour, Retry-After honoured): a try Apaleo did not take is postponed to
 * the time it computes, its count kept on the posting. The policy below only governs a handler
 * that threw (a bug, the database away).
 */
/** What the kind needs of the service's context. */
export interface PmsContext {
  db: Database;
  repos: Repositories;
  secretKeys: SecretKeyRing;
  commands: PaymentRequestCommands;
}

export function pmsJobKind(ctx: PmsContext, log?: QueueLog): JobKind<PostingResult | EventResult> {
  const repo = pmsRepository(ctx.db);
  return {
    name: 'pms',
    policy: { baseMs: 1000, maxMs: 30_000, leaseMs: 120_000 },
    concurrency: 4,
    async run(job, settle, now) {
      const [what, id = ''] = job.ref.split(':');
      const result =
        what === 'event'
          ? await runEventJob(
              { db: ctx.db, repo, repos: ctx.repos, secretKeys: ctx.secretKeys, commands: ctx.commands },
              id,
              settle,
              now,
            )
          : await runPostingJob({ repo, secretKeys: ctx.secretKeys }, id, job, settle, now);
      if (result === 'retry') log?.warn({ job: job.id, ref: job.ref }, 'apaleo did not take it: tried again later');
      return result;
    },
  };
}
