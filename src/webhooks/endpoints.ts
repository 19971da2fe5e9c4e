import { randomBytes, randomUUID } from 'node:crypto';
import type { Repositories, WebhookEndpointRow } from '../db/index.ts';
import { EVENT_TYPES } from '../events/index.ts';
import { type SecretKeyRing, secretBox } from '../secrets/index.ts';
import { type AddressClass, checkHost, ForbiddenAddressError, type Resolve } from './address-guard.ts';

/**
 * Every event type (events/event-types.ts): one per status, plus `released` (a hold released when
 * the guest arrived: CANCELLED, nothing charged), `partially_refunded` (money went
 * back and the request stays CAPTURED), `guarantee_failed` (the bank refused an IMPRINT's hold for
 * good: ERROR, the guest may give another card; or refused its renewal), `hold_declined` (a soft
 * decline: tried again), `hold_renewed` (a new hold before the old one lapsed),
 * `deleted` (the request is gone) and `incident` (money arrived where it should not and was sent
 * back).
 */
export { EVENT_TYPES };

/**
 * Why an endpoint cannot be registered, as data: the back office says it in the user's language
 * (and, to hotel staff, names no server setting); the command line, for the operator, says it in
 * English with the setting that would allow a private address.
 */
export type WebhookProblem =
  | { kind: 'required' }
  | { kind: 'notAUrl'; url: string }
  | { kind: 'scheme' }
  | { kind: 'httpsOnly' }
  | { kind: 'credentials' }
  | { kind: 'tooLong'; max: number }
  | { kind: 'forbiddenAddress'; host: string; address: string; addressClass: AddressClass }
  | { kind: 'unknownEvents'; events: string };

function operatorMessage(p: WebhookProblem): string {
  switch (p.kind) {
    case 'required':
      return 'the URL is required';
    case 'notAUrl':
      return `not a URL: ${p.url}`;
    case 'scheme':
      return 'the URL must be http:// or https://';
    case 'httpsOnly':
      return 'the URL must be https:// in production';
    case 'credentials':
      return 'the URL must not carry a user or password';
    case 'tooLong':
      return `the URL is longer than ${p.max} characters`;
    case 'forbiddenAddress':
      return `${new ForbiddenAddressError(p.host, p.address, p.addressClass).message}: webhooks may not point at the server's own network (WEBHOOKS_ALLOW_PRIVATE=on allows loopback and private addresses, for a PMS on the premises)`;
    case 'unknownEvents':
      return `unknown event type ${p.events} (known: ${EVENT_TYPES.join(', ')})`;
  }
}

/** Why an endpoint cannot be registered: `problem` for the back office, the message for the CLI. */
export class WebhookInputError extends Error {
  readonly problem: WebhookProblem;
  constructor(problem: WebhookProblem) {
    super(operatorMessage(problem));
    this.problem = problem;
  }
}

/** How long the secret a rotation replaced keeps signing beside the new one: 24 hours. */
export const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

/** Where endpoints may point: what the server runs as, and the operator's SSRF setting. */
export interface EndpointRules {
  /** NODE_ENV=production: https:// only. */
  production: boolean;
  /** WEBHOOKS_ALLOW_PRIVATE=on: loopback and private addresses are allowed. */
  allowPrivate: boolean;
  /** The resolver for the address check (tests inject one); the system's by default. */
  resolve?: Resolve;
}

/** The box that seals endpoint secrets: one key per purpose, derived from SECRET_KEY. */
export function webhookSecrets(keys: SecretKeyRing) {
  return secretBox(keys, 'webhook-secret');
}

export interface NewEndpoint {
  tenantId: string;
  url: string;
  /** Empty: every type. */
  events: string[];
}

/** An endpoint as shown to the hotel: never its secret, except once at creation. */
export function presentEndpoint(e: WebhookEndpointRow) {
  return {
    id: e.id,
    tenant_id: e.tenant_id,
    url: e.url,
    events: e.events,
    status: e.status,
    disabled_reason: e.disabled_reason,
    disabled_at: e.disabled_at ? new Date(e.disabled_at).toISOString() : null,
    failing_since: e.failing_since ? new Date(e.failing_since).toISOString() : null,
    created_at: new Date(e.created_at).toISOString(),
    previous_secret_expires_at: e.previous_secret_expires_at
      ? new Date(e.previous_secret_expires_at).toISOString()
      : null,
  };
}

const newSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;

async function checkUrl(url: string, rules: EndpointRules): Promise<string> {
  const production = rules.production;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new WebhookInputError({ kind: 'notAUrl', url });
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new WebhookInputError({ kind: 'scheme' });
  }
  // Events carry guests' names and e-mail addresses: in production they travel encrypted only.
  if (production && parsed.protocol !== 'https:') throw new WebhookInputError({ kind: 'httpsOnly' });
  if (parsed.username || parsed.password) throw new WebhookInputError({ kind: 'credentials' });
  if (url.length > 2000) throw new WebhookInputError({ kind: 'tooLong', max: 2000 });
  try {
    await checkHost(parsed.hostname, rules);
  } catch (err) {
    if (!(err instanceof ForbiddenAddressError)) throw err;
    throw new WebhookInputError({
      kind: 'forbiddenAddress',
      host: err.host,
      address: err.address,
      addressClass: err.addressClass,
    });
  }
  return parsed.toString();
}

function checkEvents(events: string[]): string[] {
  const unknown = events.filter((e) => !EVENT_TYPES.includes(e));
  if (unknown.length > 0) {
    throw new WebhookInputError({ kind: 'unknownEvents', events: unknown.join(', ') });
  }
  return [...new Set(events)];
}

/**
 * Registers an endpoint and returns it with its signing secret: the only time the secret is
 * shown. It is kept sealed, since signing needs it back.
 */
export async function createEndpoint(
  repos: Repositories,
  keys: SecretKeyRing,
  rules: EndpointRules,
  e: NewEndpoint,
): Promise<ReturnType<typeof presentEndpoint> & { secret: string }> {
  const url = await checkUrl(e.url, rules);
  const events = checkEvents(e.events);
  const id = randomUUID();
  const secret = newSecret();
  const row = await repos.webhooks.createEndpoint({
    id,
    tenantId: e.tenantId,
    url,
    events,
    secretSealed: webhookSecrets(keys).seal(secret, id),
  });
  return { ...presentEndpoint(row), secret };
}

/**
 * Gives an endpoint a new secret and returns it: the only time it is shown. The secret it
 * replaces keeps signing beside it for ROTATION_GRACE_MS, time to give the receiver the new
 * one. Undefined: no such endpoint.
 */
export async function rotateEndpointSecret(
  repos: Repositories,
  keys: SecretKeyRing,
  endpointId: string,
): Promise<(ReturnType<typeof presentEndpoint> & { secret: string }) | undefined> {
  const secret = newSecret();
  const row = await repos.webhooks.rotateSecret({
    endpointId,
    secretSealed: webhookSecrets(keys).seal(secret, endpointId),
    graceMs: ROTATION_GRACE_MS,
  });
  return row && { ...presentEndpoint(row), secret };
}
