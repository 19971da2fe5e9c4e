import type { Status } from './statuses.ts';

/**
 * The requests the hotel may replace with a new one ("Send a new link"): a refused card and a
 * link that lapsed unpaid both end the request for good (REFUSED and EXPIRED are final, as the
 * integration contract says), so asking the guest again is a new request, never a reopened one.
 */
export const REPLACEABLE_STATUSES: readonly Status[] = ['REFUSED', 'EXPIRED'];

export function isReplaceable(status: Status): boolean {
  return REPLACEABLE_STATUSES.includes(status);
}
