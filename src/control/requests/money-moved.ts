import type { LedgerRow } from '../../db/index.ts';

/** Ledger kinds that move or hold money; a card check (verification) moves none. */
const MONEY_KINDS: ReadonlySet<string> = new Set(['payment', 'hold', 'capture', 'release', 'refund', 'void']);

export const movesMoney = (l: Pick<LedgerRow, 'kind'>): boolean => MONEY_KINDS.has(l.kind);

/**
 * The amount a ledger row moved, as staff read it. A release records 0 (nothing is charged),
 * yet what it did was free the hold it ended: its parent (a renewal's release names the hold it
 * replaces), else the last hold placed before it, else the request's amount.
 */
export function movedAmount(l: LedgerRow, ledger: readonly LedgerRow[], requestAmount: number): number {
  if (l.kind !== 'release' || l.amount !== 0) return l.amount;
  const parent = l.parent_id === null ? undefined : ledger.find((x) => x.id === l.parent_id);
  if (parent?.kind === 'hold') return parent.amount;
  const at = ledger.findIndex((x) => x.id === l.id);
  for (let i = (at < 0 ? ledger.length : at) - 1; i >= 0; i--) {
    const before = ledger[i];
    if (before && before.kind === 'hold' && before.state === 'succeeded') return before.amount;
  }
  return requestAmount;
}
