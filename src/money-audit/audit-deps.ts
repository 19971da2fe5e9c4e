import type { Database, Repositories } from '../db/index.ts';
import type { MoneyRunner } from '../payment-requests/index.ts';
import type { ProviderRegistry } from '../providers/index.ts';

export interface AuditDeps {
  db: Database;
  repos: Repositories;
  runner: MoneyRunner;
  providers: ProviderRegistry;
  /**
   * How long an operation may stay unanswered before the provider's "not there" is believed:
   * a call that timed out can still land a moment later, so until then only "done" settles it.
   */
  graceSeconds: number;
  /**
   * IN_DOUBT_ESCALATE_HOURS, in seconds: until an operation is this old, reconcile may still
   * settle it, and a person settles it only by forcing (`--force`, a confirmation on the page).
   */
  escalateSeconds?: number;
  log?: { warn(obj: object, msg: string): void };
}
