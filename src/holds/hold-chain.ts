/** What became of one hold of a request's chain. */
export type HoldFate = 'live' | 'released' | 'captured' | 'lapsed' | 'releasing';

export interface ChainedHold {
  transactionId: string | null;
  /** Placed by a renewal (it replaced the hold before it). */
  renewal: boolean;
  placedAt: Date;
  endsAt: Date | null;
  fate: HoldFate;
  /** When a renewal's release freed it (fate `released`). */
  releasedAt: Date | null;
}

interface LedgerHold {
  id: string;
  kind: string;
  state: string;
  parent_id: string | null;
  provider_transaction_id: string | null;
  created_at: Date;
  hold_expires_at: Date | string | null;
}

/**
 * A request's holds as a chain, once one was renewed (a single hold says all of this in the
 * request's details already): each placed hold, when it ends, and what became of it: the
 * guarantee now, released after a renewal replaced it, captured, lapsed, or still being released.
 */
export function holdChainOf(
  request: { status: string; provider_transaction_id: string | null },
  ledger: readonly LedgerHold[],
  now: Date,
): ChainedHold[] {
  const holds = ledger.filter((l) => l.kind === 'hold' && l.state === 'succeeded');
  if (!holds.some((h) => h.parent_id !== null)) return [];
  const fate = (h: LedgerHold): { fate: HoldFate; releasedAt: Date | null } => {
    const release = ledger.find((l) => l.parent_id === h.id && l.kind === 'release');
    if (release?.state === 'succeeded') return { fate: 'released', releasedAt: release.created_at };
    if (h.provider_transaction_id === request.provider_transaction_id) {
      if (request.status === 'AUTHORISED_TO_VALIDATE') return { fate: 'live', releasedAt: null };
      if (request.status === 'CAPTURED' || request.status === 'REFUNDED') return { fate: 'captured', releasedAt: null };
    }
    if (h.hold_expires_at && new Date(h.hold_expires_at).getTime() <= now.getTime())
      return { fate: 'lapsed', releasedAt: null };
    return { fate: 'releasing', releasedAt: null };
  };
  return holds.map((h) => ({
    transactionId: h.provider_transaction_id,
    renewal: h.parent_id !== null,
    placedAt: h.created_at,
    endsAt: h.hold_expires_at === null ? null : new Date(h.hold_expires_at),
    ...fate(h),
  }));
}
