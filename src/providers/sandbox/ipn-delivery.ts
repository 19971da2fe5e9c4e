import type { FastifyBaseLogger } from 'fastify';
import { startPollingLoop } from '../../background/index.js';
import { IPN_SIGNATURE_HEADER, signIpn } from './ipn-signature.js';
import type { ClaimedNotification, SandboxStore } from './sandbox-store.js';

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

/** One attempt: undefined when the service took it (2xx), else why not. */
export async function postNotification(
  n: ClaimedNotification,
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

/** Delivers one claimed attempt and records the result; never throws. */
export async function deliver(
  store: SandboxStore,
  policy: DeliveryPolicy,
  key: Buffer,
  n: ClaimedNotification,
  log: FastifyBaseLogger,
): Promise<boolean> {
  const failure = await postNotification(n, key, policy.timeoutMs);
  try {
    if (failure === undefined) {
      await store.markDelivered(n);
      return true;
    }
    const last = n.attempts >= policy.maxAttempts;
    await store.markFailed(n, failure, retryDelay(policy, n.attempts));
    log[last ? 'error' : 'warn'](
      { notification: n.id, attempt: n.attempts, error: failure },
      last ? 'sandbox IPN: delivery given up' : 'sandbox IPN: delivery failed, will retry',
    );
  } catch (err) {
    log.error({ notification: n.id, err: (err as Error).message }, 'sandbox IPN: could not record the attempt');
  }
  return false;
}

/**
 * The in-process retry loop: polls for due notifications and delivers them, on the workers'
 * one polling loop (unref'd, so it never keeps a process alive; stop() waits for the round in
 * progress, so the database is not closed under it).
 */
export function startDeliveryLoop(
  store: SandboxStore,
  policy: DeliveryPolicy,
  key: Buffer,
  log: FastifyBaseLogger,
): { stop(): Promise<void> } {
  return startPollingLoop({
    intervalMs: Math.min(policy.baseDelayMs, 1000),
    round: async () => {
      const due = await store.claimDue(10, policy.maxAttempts, leaseFor(policy, 1));
      await Promise.all(due.map((n) => deliver(store, policy, key, n, log)));
      return false;
    },
    onError: (err) => log.warn({ err: (err as Error).message }, 'sandbox IPN: delivery round failed'),
  });
}
