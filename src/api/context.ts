import type { Config } from '../config/index.js';
import type { Database, Repositories } from '../db/index.js';
import type { Notifications } from '../ipn/apply-notification.js';
import type { ServiceMetrics } from '../metrics/index.js';
import type { GuestCommands, MoneyRunner, PaymentRequestCommands, Reconciler } from '../payment-requests/index.js';
import type { ProviderRegistry } from '../providers/index.js';
import type { SecretBox, SecretKeyRing } from '../secrets/index.js';
import type { ApiCaller, Authenticator } from './authenticator.js';

/** What every part of the service shares, built once at start. */
export interface AppContext {
  config: Config;
  db: Database;
  repos: Repositories;
  commands: PaymentRequestCommands;
  guest: GuestCommands;
  /** The provider of each tenant (each hotel is its own merchant). */
  providers: ProviderRegistry;
  /** The one path of every money move. */
  runner: MoneyRunner;
  reconciler: Reconciler;
  notifications: Notifications;
  /** SECRET_KEY as resolved at start (configured, or generated outside production). */
  secretKey: string;
  /** That key under SECRET_KEY_ID, with SECRET_KEYS_OLD: what sealed values open with. */
  secretKeys: SecretKeyRing;
  cardTokens: SecretBox;
  auth: Authenticator;
  /** This instance's Prometheus metrics (GET /metrics). */
  metrics: ServiceMetrics;
}

declare module 'fastify' {
  interface FastifyInstance {
    payreq: AppContext;
  }
  interface FastifyRequest {
    /** Set by the API key check on /api routes. */
    caller?: ApiCaller;
    /** The JSON body as received, for the Idempotency-Key fingerprint. */
    rawBody?: string;
  }
}
