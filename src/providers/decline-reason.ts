import type { DeclineReason } from '../domain/index.ts';
import { isDeclineReason } from '../domain/index.ts';
import { lyraDeclineReason } from './lyra/decline-reasons.ts';
import { stripeDeclineReason } from './stripe/decline-reasons.ts';

/**
 * The reason of a refusal, on payreq's closed list, from the code the provider gave (stored on
 * the ledger row as `decline_code`). The sandbox writes the reason itself as its code; a
 * refusal without a code, or from a provider without a table, is `other` (never retried).
 */
export function declineReasonOf(provider: string, code: string | null): DeclineReason {
  if (!code) return 'other';
  if (provider === 'lyra') return lyraDeclineReason(code);
  if (provider === 'stripe') return stripeDeclineReason(code);
  return isDeclineReason(code) ? code : 'other';
}
