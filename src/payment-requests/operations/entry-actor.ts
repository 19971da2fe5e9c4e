import type { Actor } from '../../domain/index.ts';
import type { EntryFacts } from '../money-runner.ts';

/** Who asked for a ledger row's operation: recorded on the history row of its outcome. */
export function actorOf(entry: EntryFacts): Actor {
  return { source: entry.source, actor: entry.actor };
}

/** Why the hotel asked for it (a capture, a refund), for its history row: only what was given. */
export function reasonDetail(entry: EntryFacts): { reason?: string; note?: string } {
  return {
    ...(entry.reason ? { reason: entry.reason } : {}),
    ...(entry.reason_note ? { note: entry.reason_note } : {}),
  };
}

/** The same, as the request keeps it (its last capture's or refund's; null: none given). */
export function moveReasonOf(entry: EntryFacts): { reason: string | null; note: string | null } {
  return { reason: entry.reason, note: entry.reason_note };
}
