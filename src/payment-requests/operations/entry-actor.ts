import type { Actor } from '../../domain/index.js';
import type { EntryFacts } from '../money-runner.js';

/** Who asked for a ledger row's operation: recorded on the history row of its outcome. */
export function actorOf(entry: EntryFacts): Actor {
  return { source: entry.source, actor: entry.actor };
}
