import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/index.ts';
import type { JobKind, RetryPolicy } from '../../queue/index.ts';
import { IPN_SIGNATURE_HEADER, ipnKey, signIpn } from './ipn-signature.ts';
import {
  type PendingNotification,
  recordDelivered,
  recordFailed,
  type SandboxStore,
  sandboxStore,
} from './sandbox-store.ts';

/**
 * How the sandbox notifies the service, as a real provider does: a signed POST, retried with
 * exponential backoff until the service answers 2xx, then given up after a bounded number of
 * attempts (the row stays, with its last error, for whoever investigates).
 */
export interface DeliveryPolicy {
  /** First retry delay; each later one doubles, up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
  maxAttempts: number;
  /** One attempt's time limit: the guest waits for the first one. */
  timeoutMs: number;
}

export function deliveryPolicy(baseDelayMs: number): DeliveryPolicy {
  return { baseDelayMs, maxDelayMs: baseDelayMs * 256, maxAttempts: 12, timeoutMs: 5000 };
}

/** The delay after failed attempt number `attempt` (1-based): base, 2 base, 4 base, … capped. */
export function retryDelay(policy: DeliveryPolicy, attempt: number): number {
  return Math.min(policy.baseDelayMs * 2 ** Math.max(0, attempt - 1), policy.maxDelayMs);
}

/** How long a claimed attempt is held before another may start: its time limit, then the backoff. */
export function leaseFor(policy: DeliveryPolicy, attempt: number): number {
  return policy.timeoutMs + retryDelay(policy, attempt);
}

/** The same policy as the queue applies it to the sandbox's notification jobs. */
export function queuePolicy(policy: DeliveryPolicy): RetryPolicy {
  return {
    baseMs: policy.baseDelayMs,
    maxMs: policy.maxDelayMs,
    maxAttempts: policy.maxAttempts,
    leaseMs: leaseFor(policy, 1),
  };
}

/** One attempt: undefined when the service took it (2xx), else why not. */
export async function postNotification(
  n: PendingNotification,
  key: Buffer,
  timeoutMs: number,
): Promise<string | undefined> {
  try {
    const r = await fetch(n.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [IPN_SIGNATURE_HEADER]: signIpn(key, n.body) },
      body: n.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    await r.body?.cancel().catch(() => {});
    return r.ok ? undefined : `HTTP ${r.status}`;
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    return cause ?? (err as Error).name ?? 'request failed';
  }
}

/**
 * The sandbox's notifications as a kind of the queue: the first attempt is made inline while
 * the guest waits (the route runs this kind on the job it created); the retries fall to the
 * worker of an instance with WORKERS=on.
 */
export function sandboxNotificationKind(
  store: SandboxStore,
  policy: DeliveryPolicy,
  key: Buffer,
  log: FastifyBaseLogger,
): JobKind<'delivered' | 'failed'> {
  return {
    name: 'sandbox_notification',
    policy: queuePolicy(policy),
    concurrency: 10,
    async run(job, finish) {
      const n = await store.pending(job.ref);
      if (!n) {
        await finish.done();
        return 'delivered';
      }
      const failure = await postNotification(n, key, policy.timeoutMs);
      if (failure === undefined) {
        await finish.done((tx) => recordDelivered(tx, n.id, job.attempts));
        return 'delivered';
      }
      const after = await finish.fail(failure, (a) => (tx) => recordFailed(tx, n.id, failure, a.runAt, job.attempts));
      log[after.final ? 'error' : 'warn'](
        { notification: n.id, attempt: job.attempts, error: failure },
        after.final ? 'sandbox IPN: delivery given up' : 'sandbox IPN: delivery failed, will retry',
      );
      return 'failed';
    },
  };
}

/** The sandbox's notification kind, as the routes (first attempt) and the worker (retries) run it. */
export function sandboxJobKind(
  ctx: { db: Database; secretKey: string; config: { sandboxIpnRetryMs: number } },
  log: FastifyBaseLogger,
): JobKind<'delivered' | 'failed'> {
  return sandboxNotificationKind(
    sandboxStore(ctx.db),
    deliveryPolicy(ctx.config.sandboxIpnRetryMs),
    ipnKey(ctx.secretKey),
    log,
  );
}
