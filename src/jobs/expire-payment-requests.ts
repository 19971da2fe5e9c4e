import { allowedFrom, type Trigger, targetOf } from '../domain/index.ts';
import type { Deadline, ExpiryRepository } from './expiry-repository.ts';

export interface ExpireContext {
  expiry: ExpiryRepository;
}

export interface ExpireOptions {
  /** Rows moved per statement: a large backlog never holds many row locks at once. */
  batchSize?: number;
  /**
   * The latest moment a link may be taken to have expired: real time. A run as of a later
   * moment (a test clock, `--date` after today) moves holds by it (the sandbox's orders live on
   * that clock), never a link before its own link_expires_at has really passed.
   */
  linksUntil?: Date;
}

export interface ExpireResult {
  now: string;
  holds_expired: number;
  links_expired: number;
}

/** What expires, by which deadline (docs/lifecycle.md). The statuses come from the transition table. */
const RULES: readonly { trigger: Trigger; deadline: Deadline; key: 'holds_expired' | 'links_expired' }[] = [
  { trigger: 'hold_expired', deadline: 'hold_expires_at', key: 'holds_expired' },
  { trigger: 'link_expired', deadline: 'link_expires_at', key: 'links_expired' },
];

/**
 * `expire_payment_requests`: a hold not captured or released by its end, and a
 * link not paid within the tenant's link lifetime, become EXPIRED. A deadline equal to `now`
 * has passed (the hold ends at that instant). Rows a money command has claimed are skipped and
 * picked up by a later run if the command gives them back. `now` is a parameter so tests and
 * `job run --date` decide the time. Running it twice moves nothing the second time.
 */
export async function expirePaymentRequests(
  ctx: ExpireContext,
  now: Date,
  options: ExpireOptions = {},
): Promise<ExpireResult> {
  const limit = options.batchSize ?? 500;
  const result: ExpireResult = { now: now.toISOString(), holds_expired: 0, links_expired: 0 };
  const linksUntil = options.linksUntil && options.linksUntil.getTime() < now.getTime() ? options.linksUntil : now;
  for (const rule of RULES) {
    const from = allowedFrom(rule.trigger);
    const to = targetOf(rule.trigger);
    for (;;) {
      const moved = await ctx.expiry.expireBatch({
        deadline: rule.deadline,
        from,
        to,
        now: rule.deadline === 'link_expires_at' ? linksUntil : now,
        limit,
        trigger: rule.trigger,
      });
      result[rule.key] += moved;
      // A short batch means nothing due was left (rows skipped as locked wait for the next run).
      if (moved < limit) break;
    }
  }
  return result;
}
