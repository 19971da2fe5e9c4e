import { type ClaimedDelivery, type Database, type Repositories, webhooksRepository } from '../db/index.ts';
import { type Finish, type JobKind, type QueueWorker, runDueJobs, startQueueWorker } from '../queue/index.ts';
import type { SecretKeyRing } from '../secrets/index.ts';
import type { Resolve } from './address-guard.ts';
import { webhookSecrets } from './endpoints.ts';
import { postOnce } from './http-post.ts';
import { SIGNATURE_HEADER, signatureHeader } from './signature.ts';

/** The slice of a logger (pino, Fastify's) the worker writes to. */
export interface WebhookLog {
  info(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
  error(obj: Record<string, unknown>, msg: string): void;
}

export interface WebhookContext {
  db: Database;
  repos: Pick<Repositories, 'webhooks'>;
  /** What endpoint secrets open with (SECRET_KEY and the retired keys). */
  secretKeys: SecretKeyRing;
}

export interface WebhookOptions {
  /** First delay after a failure; doubles each attempt, up to an hour. Also the endpoint's. */
  retryBaseMs: number;
  /**
   * 3 days: how long a delivery is retried before it fails, and how long an endpoint may fail
   * every attempt before it is disabled.
   */
  giveUpAfterMs?: number;
  /** How long an endpoint has to answer: 10 s. */
  timeoutMs?: number;
  /** How long the connection to an endpoint may take to open: 3 s. */
  connectTimeoutMs?: number;
  /** Deliveries one instance sends at once: 100. A round (deliverDueWebhooks) claims this many. */
  maxInFlight?: number;
  /** Deliveries in flight to one endpoint, across instances: 2 (1 while it is failing). */
  perEndpoint?: number;
  /** Deliveries in flight to one tenant's endpoints, across instances: 20. */
  perTenant?: number;
  log?: WebhookLog;
  /** The clock, for tests to drive; unset, the database's. */
  now?: () => Date;
  /**
   * WEBHOOKS_ALLOW_PRIVATE=on: deliveries may go to loopback and private addresses. Off unless
   * given: the SSRF guard refuses them (address-guard.ts).
   */
  allowPrivate?: boolean;
  /** The resolver the connection's lookup uses (tests inject one); the system's by default. */
  resolve?: Resolve;
}

export const GIVE_UP_AFTER_MS = 3 * 24 * 60 * 60 * 1000;
export const DELIVERY_TIMEOUT_MS = 10_000;
const CONNECT_TIMEOUT_MS = 3000;
const MAX_BACKOFF_MS = 60 * 60 * 1000;
const MAX_IN_FLIGHT = 100;
const PER_ENDPOINT = 2;
const PER_TENANT = 20;
/** Longer than the timeout, so a row is claimed again only once its holder surely gave up. */
const LEASE_MS = 60_000;

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

export type DeliveryOutcome = 'delivered' | 'failed' | 'disabled';

export interface RoundResult {
  claimed: number;
  delivered: number;
  failed: number;
  disabled: number;
}

/**
 * Sends one claimed delivery and records the outcome with the job's finish: delivered, or
 * failed (retried later, the endpoint backing off), or the failure that disables its endpoint.
 */
async function deliver(
  ctx: WebhookContext,
  opts: WebhookOptions,
  row: ClaimedDelivery,
  finish: Finish,
): Promise<DeliveryOutcome> {
  const log = opts.log ?? silentLog;
  const body = deliveryBody(row);
  let status: number | null = null;
  let error: string;
  const startedAt = new Date();
  try {
    const box = webhookSecrets(ctx.secretKeys);
    // During a rotation's grace, both secrets sign: the new one first, the replaced one last.
    const secrets = [row.secret_sealed, row.previous_secret_sealed]
      .filter((s): s is string => s !== null)
      .map((sealed) => box.open(sealed, row.endpoint_id));
    const answer = await postOnce(
      row.url,
      body,
      {
        'content-type': 'application/json',
        'user-agent': 'payreq-webhooks/1',
        [SIGNATURE_HEADER]: signatureHeader(secrets, body, Math.floor(Date.now() / 1000)),
        'payreq-event-id': row.event_id,
        'payreq-delivery-attempt': String(row.attempts),
      },
      {
        connectTimeoutMs: opts.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
        timeoutMs: opts.timeoutMs ?? DELIVERY_TIMEOUT_MS,
      },
      { allowPrivate: opts.allowPrivate ?? false, resolve: opts.resolve },
    );
    status = answer.status;
    // A redirect is never followed: it could lead anywhere, the guard's checks included.
    error =
      status >= 300 && status < 400
        ? `HTTP ${status}: redirect${answer.location ? ` to ${answer.location.slice(0, 500)}` : ''} not followed (register the final URL)`
        : `HTTP ${status}`;
  } catch (err) {
    error = err instanceof Error ? err.message : String(err);
  }
  const timing = { attempt: row.attempts, startedAt, durationMs: Date.now() - startedAt.getTime() };
  if (status !== null && status >= 200 && status < 300) {
    const statusCode = status;
    await finish.done((tx) =>
      webhooksRepository(tx as Database).markDelivered({
        id: row.id,
        endpointId: row.endpoint_id,
        statusCode,
        timing,
        at: opts.now?.(),
      }),
    );
    return 'delivered';
  }
  const giveUpAfterMs = opts.giveUpAfterMs ?? GIVE_UP_AFTER_MS;
  const days = Math.round(giveUpAfterMs / 86_400_000);
  // The delivery log decides when a delivery fails (3 days from first_attempt_due) and when
  // its endpoint has failed for too long: the queue follows (the row failed, its job goes). The
  // endpoint is disabled in the same fenced step: a worker whose lease was taken disables nothing.
  let outcome = { deliveryFailed: false, endpointExhausted: false };
  let disabled = false;
  await finish.fail(error, () => async (tx) => {
    const repo = webhooksRepository(tx as Database);
    outcome = await repo.recordFailure({
      id: row.id,
      endpointId: row.endpoint_id,
      statusCode: status,
      error,
      retryDelayMs: retryDelayMs(row.attempts, opts.retryBaseMs),
      backoffBaseMs: opts.retryBaseMs,
      maxBackoffMs: MAX_BACKOFF_MS,
      giveUpAfterMs,
      timing,
      at: opts.now?.(),
    });
    if (!outcome.endpointExhausted) return;
    disabled =
      (await repo.disableEndpoint({
        endpointId: row.endpoint_id,
        reason: `every delivery failed for ${days} days; last error: ${error}`,
        keepErrorOf: row.id,
        at: opts.now?.(),
      })) !== undefined;
  });
  log.info(
    { deliveryId: row.id, eventId: row.event_id, attempts: row.attempts, final: outcome.deliveryFailed, err: error },
    'webhook not delivered',
  );
  if (!disabled) return 'failed';
  // The notice: the operator's log, the tenant's audit log and settings page in the back
  // office, and `payreq webhook list`, until the hotel fixes its receiver and registers it again.
  log.warn(
    { endpointId: row.endpoint_id, tenantId: row.tenant_id, url: row.url, err: error },
    `webhook endpoint disabled: deliveries failed for ${days} days`,
  );
  return 'disabled';
}

/**
 * The webhook kind of the queue: one job per pending delivery, in the lane of its endpoint.
 * The retry schedule is the delivery's (WEBHOOK_RETRY_BASE_MS doubling to an hour, for 3
 * days); the claim takes only what the endpoints' limits allow (webhooks.dueJobs).
 */
export function webhookJobKind(ctx: WebhookContext, opts: WebhookOptions): JobKind<DeliveryOutcome> {
  return {
    name: 'webhook_delivery',
    policy: {
      baseMs: opts.retryBaseMs,
      maxMs: MAX_BACKOFF_MS,
      giveUpAfterMs: opts.giveUpAfterMs ?? GIVE_UP_AFTER_MS,
      leaseMs: LEASE_MS,
    },
    concurrency: opts.maxInFlight ?? MAX_IN_FLIGHT,
    narrow: (tx, o) =>
      webhooksRepository(tx as Database).dueJobs({
        limit: o.limit,
        perEndpoint: opts.perEndpoint ?? PER_ENDPOINT,
        perTenant: opts.perTenant ?? PER_TENANT,
        at: o.now,
      }),
    async run(job, finish) {
      const row = await ctx.repos.webhooks.pendingDelivery(job.ref, opts.now?.());
      // Settled meanwhile (its endpoint disabled, deleted): nothing to send.
      if (!row) {
        await finish.done();
        return 'failed';
      }
      return deliver(ctx, opts, { ...row, attempts: job.attempts }, finish);
    },
  };
}

/**
 * One round of the webhook outbox, for tests and one-off runs: claim what is due within the
 * limits, send it all in parallel, record the outcomes, and answer once all are finished.
 * At least once: a crash after the endpoint answered but before the row is marked delivered
 * sends it again when the lease ends; receivers drop the copy by the event id (also in the
 * `Payreq-Event-Id` header).
 */
export async function deliverDueWebhooks(ctx: WebhookContext, opts: WebhookOptions): Promise<RoundResult> {
  const outcomes = await runDueJobs(ctx.db, webhookJobKind(ctx, opts), {
    now: opts.now?.(),
    limit: opts.maxInFlight ?? MAX_IN_FLIGHT,
    log: opts.log,
  });
  return {
    claimed: outcomes.length,
    delivered: outcomes.filter((o) => o === 'delivered').length,
    failed: outcomes.filter((o) => o !== 'delivered').length,
    disabled: outcomes.filter((o) => o === 'disabled').length,
  };
}

/**
 * The queue's worker running the webhook kind alone (tests; `serve` runs every kind in one).
 * Whenever a delivery ends its slot is filled again with whatever is due, so a delivery that
 * hangs holds one slot, never the others. `stop()` waits for the deliveries in flight (at
 * most the timeout).
 */
export function startWebhookWorker(ctx: WebhookContext, opts: WebhookOptions): QueueWorker {
  return startQueueWorker({ db: ctx.db, kinds: [webhookJobKind(ctx, opts)], log: opts.log });
}
