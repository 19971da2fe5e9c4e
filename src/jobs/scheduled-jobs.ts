import type { Repositories } from '../db/index.js';
import type { PaymentProvider } from '../providers/index.js';
import type { SecretBox } from '../secrets/index.js';
import { createDeferredPayments } from './create-deferred-payments.js';
import { expirePaymentRequests } from './expire-payment-requests.js';
import { purgeEvents } from './purge-events.js';
import { reconcileStaleClaims } from './reconcile-claims.js';
import { dateIn } from './schedule-times.js';

/** What the scheduled jobs need from the service: its repositories, provider and card vault. */
export interface JobsContext {
  repos: Repositories;
  provider: PaymentProvider;
  cardTokens: SecretBox;
}

/**
 * A job the scheduler can run: given the service, the moment of the run and the schedule's time
 * zone, does its work and returns counts for the run history.
 */
export type ScheduledJob = (ctx: JobsContext, now: Date, timezone: string) => Promise<Record<string, unknown>>;

/** The jobs by the name their schedule row carries (the rows are seeded by the migrations). */
export const SCHEDULED_JOBS: Readonly<Record<string, ScheduledJob>> = {
  // "Today" is the date where the hotel is, not where the server is.
  create_deferred_payments: async (ctx, now, timezone) => ({
    ...(await createDeferredPayments(
      { holds: ctx.repos.deferredHolds, provider: ctx.provider, cardTokens: ctx.cardTokens },
      dateIn(timezone, now),
    )),
  }),
  expire_payment_requests: async (ctx, now) => ({
    ...(await expirePaymentRequests({ expiry: ctx.repos.expiry }, now)),
  }),
  purge_events: async (ctx) => ({ ...(await purgeEvents(ctx.repos)) }),
  reconcile_claims: async (ctx) => ({
    ...(await reconcileStaleClaims({ requests: ctx.repos.paymentRequests, provider: ctx.provider })),
  }),
};
