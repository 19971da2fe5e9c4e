import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { currentStatus, type Database, type Repositories, type Tenant } from '../db/index.ts';
import { type Actor, AppError, allowedFrom, type Status } from '../domain/index.ts';
import type { PaymentRequestCommands, TenantContext } from '../payment-requests/index.ts';
import type { Finish } from '../queue/index.ts';
import type { SecretKeyRing } from '../secrets/index.ts';
import { ApaleoError, apaleoClient, describeAnswer, failureOf } from './apaleo-client.ts';
import { readCreatedId, readReservation } from './apaleo-wire.ts';
import { endpointOf, webhookBaseOf } from './connection.ts';
import type { ConnectionRow, PmsRepository } from './pms-repository.ts';
import { type ReservationRule, requestByRule, whyNoRequest } from './reservation-rule.ts';
import { nextAttempt } from './retry-schedule.ts';

/**
 * Apaleo's reservation webhooks (apaleo.dev, "Configure webhooks", "Webhooks payload", "Best
 * practices for webhooks"): a subscription names the endpoint, the events and the property;
 * each delivery is `{"topic": "Reservation", "type": "created" | "canceled" | …, "id",
 * "accountId", "propertyId", "data": {"entityId": <reservation id>}, "timestamp"}`, ids only,
 * signed by nothing, perhaps sent twice. So the endpoint's URL carries a secret of its own
 * (stored as its SHA-256), each event is kept once by its id, and what it says is read again
 * from the reservation itself.
 */
export const RESERVATION_EVENTS = ['reservation/created', 'reservation/canceled'] as const;

/** The path Apaleo posts to, the secret in it (PUBLIC_BASE_URL before it). */
export const webhookPath = (tenantId: string, secret: string) => `/pms/apaleo/${tenantId}/${secret}`;

const hashOf = (secret: string) => createHash('sha256').update(secret).digest('hex');

/** Whether `secret` is the connection's endpoint secret (in constant time). */
export function secretMatches(c: ConnectionRow, secret: string): boolean {
  if (!c.webhook_secret_hash) return false;
  const a = Buffer.from(hashOf(secret), 'hex');
  const b = Buffer.from(c.webhook_secret_hash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

export class RuleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RuleError';
  }
}

/**
 * Turns the reservation rule on (subscribing to Apaleo's reservation events for the property,
 * with a new secret in the endpoint's URL; Apaleo checks the endpoint answers before it
 * subscribes) or off (the subscription removed). The former subscription, if any, is removed
 * once the new one exists.
 */
export async function setReservationRule(
  deps: { repo: PmsRepository; secretKeys: SecretKeyRing; publicBaseUrl: string },
  tenantId: string,
  rule: ReservationRule | null,
): Promise<ConnectionRow> {
  const c = await deps.repo.connection(tenantId);
  if (!c) throw new RuleError('not connected to Apaleo');
  const client = apaleoClient(endpointOf(deps.secretKeys, c));
  const baseUrl = webhookBaseOf(c.api_url);
  let subscription: { secretHash: string; subscriptionId: string } | undefined;
  if (rule) {
    const secret = randomBytes(24).toString('base64url');
    const endpointUrl = `${deps.publicBaseUrl.replace(/\/+$/, '')}${webhookPath(tenantId, secret)}`;
    // Stored first: Apaleo's health check reaches the endpoint before its answer reaches us.
    await deps.repo.setReservationRule(tenantId, c.version, {
      kind: rule.kind,
      value: rule.value,
      secretHash: hashOf(secret),
      subscriptionId: c.webhook_subscription_id ?? '',
    });
    try {
      const r = await client.call('POST', '/v1/subscriptions', {
        baseUrl,
        body: { endpointUrl, events: [...RESERVATION_EVENTS], propertyIds: [c.property_id] },
      });
      const id = r.status < 300 ? readCreatedId(r.body) : undefined;
      if (!id) throw new RuleError(`Apaleo did not subscribe (${describeAnswer(r)})`);
      subscription = { secretHash: hashOf(secret), subscriptionId: id };
    } catch (err) {
      // Back to what was: the former subscription and its secret.
      await deps.repo.setReservationRule(
        tenantId,
        c.version,
        c.reservation_rule && c.webhook_secret_hash && c.webhook_subscription_id
          ? {
              kind: c.reservation_rule,
              value: c.reservation_rule_value,
              secretHash: c.webhook_secret_hash,
              subscriptionId: c.webhook_subscription_id,
            }
          : null,
      );
      if (err instanceof ApaleoError) throw new RuleError(`Apaleo was not reached: ${err.message}`);
      throw err;
    }
  }
  const stored = await deps.repo.setReservationRule(
    tenantId,
    c.version,
    rule && subscription ? { kind: rule.kind, value: rule.value, ...subscription } : null,
  );
  if (!stored) throw new RuleError('the connection changed meanwhile: nothing was turned on');
  if (c.webhook_subscription_id) {
    await client
      .call('DELETE', `/v1/subscriptions/${encodeURIComponent(c.webhook_subscription_id)}`, { baseUrl })
      .catch(() => undefined);
  }
  return (await deps.repo.connection(tenantId)) as ConnectionRow;
}

export interface EventDeps {
  db: Database;
  repo: PmsRepository;
  repos: Repositories;
  secretKeys: SecretKeyRing;
  commands: PaymentRequestCommands;
}

export type EventResult = 'done' | 'failed' | 'retry' | 'gone';

const APALEO: Actor = { source: 'job', actor: 'apaleo' };

const contextOf = (t: Tenant): TenantContext => ({
  tenantId: t.id,
  timezone: t.timezone,
  linkLifetimeDays: t.link_lifetime_days,
  confirmationEmail: t.confirmation_email,
});

/**
 * What a cancelled reservation does to each of its requests: an open link is cancelled, a
 * registered card with no hold yet is cancelled too (no hold may come for a stay that is off),
 * a hold is released. Anything else (paid, already ended) is left as it is, and the event says so.
 */
const CANCELLABLE: readonly Status[] = allowedFrom('cancel');
const UNHELD_GUARANTEE: readonly Status[] = allowedFrom('reservation_cancelled', 'IMPRINT');
const RELEASABLE: readonly Status[] = allowedFrom('release');

/**
 * A request of the cancelled reservation is under a money operation (the daily job placing its
 * hold, a capture): the event is worked again later, when that operation has ended, so that a
 * hold placed meanwhile is released rather than left on the guest's card.
 */
class RequestBusy extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RequestBusy';
  }
}

/** Ends one request of a cancelled reservation; what was done, in a few words. */
async function endWithReservation(
  deps: EventDeps,
  tenant: Tenant,
  r: { id: string; reference: string; status: Status },
): Promise<string> {
  let status: Status = r.status;
  for (let attempt = 0; ; attempt++) {
    try {
      if (CANCELLABLE.includes(status) || UNHELD_GUARANTEE.includes(status)) {
        const trigger = CANCELLABLE.includes(status) ? 'cancel' : 'reservation_cancelled';
        await deps.commands.cancel(contextOf(tenant), r.id, APALEO, trigger);
        return `${r.reference} cancelled`;
      }
      if (RELEASABLE.includes(status)) {
        const out = await deps.commands.release(contextOf(tenant), r.id, APALEO);
        return `${r.reference} ${out.status === 'CANCELLED' ? 'released' : `release: ${out.status}`}`;
      }
      return `${r.reference} left ${status}`;
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      if (err.code === 'operation_in_progress') throw new RequestBusy(`${r.reference}: ${err.message}`);
      // Moved between the read and the move (the daily job's hold placed, the guest's card
      // registered): once more, by what the request is now.
      const now = await currentStatus(deps.db, r.id);
      if (attempt > 0 || now === null || now === status) return `${r.reference}: ${err.message}`;
      status = now;
    }
  }
}

/**
 * One event's work. `created`: with the rule on, a request for the reservation by the rule
 * (none if the reservation has one already, or is not the property's); `canceled`: its requests
 * ended (endWithReservation). Apaleo down, or a request busy: tried again later, as postings are.
 */
async function handle(deps: EventDeps, tenant: Tenant, c: ConnectionRow, type: string, id: string): Promise<string> {
  const requests = await deps.db.query<{ id: string; reference: string; status: Status }>(
    'SELECT id, reference, status FROM payment_requests WHERE tenant_id = $1 AND reservation_ref = $2 ORDER BY created_at',
    [tenant.id, id],
  );
  if (type === 'canceled') {
    const done: string[] = [];
    for (const r of requests.rows) done.push(await endWithReservation(deps, tenant, r));
    return done.length > 0 ? done.join('; ') : 'no request for this reservation';
  }
  if (type !== 'created') return `ignored (${type})`;
  if (!c.reservation_rule) return 'no reservation rule';
  if (requests.rows.length > 0) return `a request exists: ${requests.rows.map((r) => r.reference).join(', ')}`;
  const client = apaleoClient(endpointOf(deps.secretKeys, c));
  const answer = await client.call('GET', `/booking/v1/reservations/${encodeURIComponent(id)}`);
  if (answer.status === 404) return `no reservation "${id}" in Apaleo`;
  if (answer.status !== 200) throw new ApaleoError(failureOf(answer, 'GET'));
  const r = readReservation(answer.body);
  if (!r)
    throw new ApaleoError({
      kind: 'unavailable',
      message: 'Apaleo answered a reservation unreadably',
      maybeSent: false,
    });
  if (r.propertyId !== c.property_id) return `reservation of property ${r.propertyId}`;
  if (r.status === 'Canceled') return 'the reservation is cancelled';
  const why = whyNoRequest(r);
  if (why) throw new RuleError(why);
  const input = requestByRule(r, { kind: c.reservation_rule, value: c.reservation_rule_value });
  const created = await deps.commands.create(contextOf(tenant), input, APALEO);
  return `created ${created.reference}`;
}

export async function runEventJob(deps: EventDeps, id: string, finish: Finish, now: Date): Promise<EventResult> {
  const ev = await deps.repo.event(id);
  const c = ev ? await deps.repo.connection(ev.tenant_id) : undefined;
  const tenant = ev ? await deps.repos.tenants.find(ev.tenant_id) : undefined;
  if (ev?.state !== 'pending') {
    await finish.done();
    return 'gone';
  }
  const end = async (state: 'done' | 'failed', outcome: string): Promise<EventResult> => {
    await finish.done((tx) => deps.repo.recordEvent(tx, id, state, outcome));
    return state;
  };
  if (!c || !tenant) return end('done', 'not connected to Apaleo');
  try {
    return await end('done', await handle(deps, tenant, c, ev.type, ev.reservation_id));
  } catch (err) {
    if (err instanceof RuleError) return end('failed', err.message);
    if (err instanceof AppError) return end('failed', err.message);
    if (!(err instanceof ApaleoError) && !(err instanceof RequestBusy)) throw err;
    let retryAfterMs: number | undefined;
    if (err instanceof ApaleoError) {
      if (err.failure.kind !== 'unavailable') return end('failed', err.message);
      retryAfterMs = err.failure.retryAfterMs;
    }
    const next = nextAttempt({
      failures: ev.attempts + 1,
      firstDueAt: ev.created_at,
      now,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    });
    if (next.giveUp) return end('failed', `tried for 3 days: ${err.message}`);
    await finish.postpone(next.at, (tx) => deps.repo.recordEvent(tx, id, 'pending', err.message));
    return 'retry';
  }
}
