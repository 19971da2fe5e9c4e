import type { ClaimedDelivery, Repositories } from '../db/index.js';
import type { SecretKeyRing } from '../secrets/index.js';
import { webhookSecrets } from './endpoints.js';
import { SIGNATURE_HEADER, signatureHeader } from './signature.js';

/** The slice of a logger (pino, Fastify's) the worker writes to. */
export interface WebhookLog {
  info(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
  error(obj: Record<string, unknown>, msg: string): void;
}

export interface WebhookContext {
  repos: Pick<Repositories, 'webhooks'>;
  /** What endpoint secrets open with (SECRET_KEY and the retired keys). */
  secretKeys: SecretKeyRing;
}

export interface WebhookOptions {
  /** First delay after a failure; doubles each attempt, up to an hour. */
  retryBaseMs: number;
  /** How long a delivery is retried before it fails and its endpoint is disabled: 3 days. */
  giveUpAfterMs?: number;
  /** How long an endpoint has to answer: 10 s. */
  timeoutMs?: number;
  batchSize?: number;
  log?: WebhookLog;
}

export const GIVE_UP_AFTER_MS = 3 * 24 * 60 * 60 * 1000;
export const DELIVERY_TIMEOUT_MS = 10_000;
const MAX_BACKOFF_MS = 60 * 60 * 1000;
/** Longer than the timeout, so a row is claimed again only once its holder surely gave up. */
const LEASE_MS = 60_000;
const POLL_MS = 2000;

export function retryDelayMs(attempts: number, baseMs: number): number {
  return Math.min(baseMs * 2 ** Math.max(attempts - 1, 0), MAX_BACKOFF_MS);
}

/** The body POSTed to an endpoint: the event as the feed shows it. */
export function deliveryBody(d: Pick<ClaimedDelivery, 'event_id' | 'type' | 'data' | 'event_created_at'>): string {
  return JSON.stringify({
    id: Number(d.event_id),
    type: d.type,
    created_at: new Date(d.event_created_at).toISOString(),
    data: d.data,
  });
}

const silentLog: WebhookLog = { info() {}, warn() {}, error() {} };

export interface RoundResult {
  claimed: number;
  delivered: number;
  failed: number;
  disabled: number;
}

/**
 * One round of the webhook outbox: claim due deliveries, POST each (in parallel: the claim never
 * hands out two deliveries of one request to one endpoint at once), record the outcome. Safe
 * from any number of instances. At least once: a crash after the endpoint answered but before
 * the row is marked delivered sends it again when the lease ends; receivers drop the copy by
 * the event id (also in the `Payreq-Event-Id` header).
 */
export async function deliverDueWebhooks(ctx: WebhookContext, opts: WebhookOptions): Promise<RoundResult> {
  const log = opts.log ?? silentLog;
  const q = ctx.repos.webhooks;
  const secrets = webhookSecrets(ctx.secretKeys);
  const rows = await q.claim(opts.batchSize ?? 20, LEASE_MS);
  const result: RoundResult = { claimed: rows.length, delivered: 0, failed: 0, disabled: 0 };
  await Promise.all(
    rows.map(async (row) => {
      const body = deliveryBody(row);
      let status: number | null = null;
      let error: string;
      try {
        const secret = secrets.open(row.secret_sealed, row.endpoint_id);
        const response = await fetch(row.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': 'payreq-webhooks/1',
            [SIGNATURE_HEADER]: signatureHeader(secret, body, Math.floor(Date.now() / 1000)),
            'payreq-event-id': row.event_id,
            'payreq-delivery-attempt': String(row.attempts),
          },
          body,
          redirect: 'manual',
          signal: AbortSignal.timeout(opts.timeoutMs ?? DELIVERY_TIMEOUT_MS),
        });
        status = response.status;
        // Read (and drop) the answer so the connection can be reused; its content is not ours.
        await response.arrayBuffer().catch(() => undefined);
        if (status >= 200 && status < 300) {
          await q.markDelivered(row.id, status);
          result.delivered++;
          return;
        }
        error = `HTTP ${status}`;
      } catch (err) {
        const e = err as Error;
        error = e.name === 'TimeoutError' ? 'timed out' : e.message;
      }
      result.failed++;
      const age = Date.now() - new Date(row.first_attempt_due).getTime();
      if (age >= (opts.giveUpAfterMs ?? GIVE_UP_AFTER_MS)) {
        if (await q.giveUp(row.id, row.endpoint_id, status, error)) {
          result.disabled++;
          // The notice: the operator's log, and the endpoint's status and reason in
          // `payreq webhook list`, until the hotel fixes its receiver and registers it again.
          log.warn(
            { endpointId: row.endpoint_id, tenantId: row.tenant_id, url: row.url, err: error },
            'webhook endpoint disabled: deliveries failed for 3 days',
          );
        }
        return;
      }
      const retryAt = new Date(Date.now() + retryDelayMs(row.attempts, opts.retryBaseMs));
      await q.markRetry(row.id, status, error, retryAt);
      log.info(
        { deliveryId: row.id, eventId: row.event_id, attempts: row.attempts, err: error },
        'webhook not delivered',
      );
    }),
  );
  return result;
}

/**
 * The delivery worker, running continuously beside the mail worker: a round every 2 s, at once
 * again while rounds come back full. `stop()` waits for the round in progress.
 */
export function startWebhookWorker(ctx: WebhookContext, opts: WebhookOptions): { stop(): Promise<void> } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const batchSize = opts.batchSize ?? 20;

  async function loop(): Promise<void> {
    if (stopped) return;
    let full = false;
    try {
      const r = await deliverDueWebhooks(ctx, { ...opts, batchSize });
      full = r.claimed === batchSize;
    } catch (err) {
      opts.log?.error({ err: err instanceof Error ? err.message : String(err) }, 'webhook round failed');
    }
    if (stopped) return;
    // Unref'd: the worker never keeps a process alive on its own; serve stops it on shutdown.
    timer = setTimeout(tick, full ? 0 : POLL_MS);
    timer.unref();
  }
  function tick() {
    running = loop();
  }
  running = loop();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
