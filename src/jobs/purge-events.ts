import type { Repositories } from '../db/index.ts';

/** Events are kept this long: enough for an integrator back from a long outage to catch up. */
export const EVENT_RETENTION_DAYS = 90;
/** A delivered webhook's log row is kept this long; failed ones stay as long as their event. */
export const DELIVERED_RETENTION_DAYS = 30;

/**
 * `purge_events`: deletes delivered webhook log rows older than 30 days, then events older than
 * 90 days that no delivery still waits for. The status history keeps every change for good.
 * Works in batches so one run never holds a long transaction.
 */
export async function purgeEvents(repos: Pick<Repositories, 'events' | 'webhooks'>): Promise<{
  deliveries: number;
  events: number;
}> {
  let deliveries = 0;
  let events = 0;
  for (;;) {
    const n = await repos.webhooks.purgeDelivered(DELIVERED_RETENTION_DAYS);
    deliveries += n;
    if (n < 10_000) break;
  }
  for (;;) {
    const n = await repos.events.purge(EVENT_RETENTION_DAYS);
    events += n;
    if (n < 10_000) break;
  }
  return { deliveries, events };
}
