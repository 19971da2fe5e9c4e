import type { Actor } from '../../domain/index.ts';
import type { EntryFacts } from '../money-runner.ts';

/** Who asked for a ledger row's operation: recorded on the history row of its outcome. */
export function actorOf(entry: EntryFacts): Actor {
  return { source: entry.source, actor: entry.actor };
}
