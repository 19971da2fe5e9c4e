import type { Repositories } from '../db/index.ts';

/**
 * Claims with no open ledger row, older than `seconds`: their process died (or stalled) before
 * asking the provider anything (the ledger row is written before every call), so nothing moved.
 * A stalled holder that wakes up finds its claim's token gone: it writes nothing, sends nothing.
 */
export async function releaseStaleClaims(repos: Repositories, seconds: number): Promise<number> {
  return repos.paymentRequests.releaseStaleClaims(seconds, 500);
}
