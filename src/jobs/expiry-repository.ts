import { applyStatusChanges, type Database, statusLiterals } from '../db/index.ts';
import type { Status } from '../domain/index.ts';

/** Which deadline a batch looks at: the end of a hold, or the end of a payment link's life. */
export type Deadline = 'hold_expires_at' | 'link_expires_at';

export interface ExpiryBatch {
  deadline: Deadline;
  /** The statuses the transition table lets this trigger move from. */
  from: readonly Status[];
  to: Status;
  now: Date;
  limit: number;
  /** Recorded in the history row's detail, e.g. `hold_expired`. */
  trigger: string;
}

/**
 * The expiry job's SQL. One transaction per batch: pick up to `limit` due rows (locked,
 * skipping rows another run holds, so two runs never wait on each other), then move them
 * through the one status-change function, which writes their history. A row with a pending action is left alone: a capture or a
 * release in flight wins over the expiry, and the next run looks again if it gave the claim back.
 */
export function expiryRepository(db: Database) {
  return {
    /** Moves one batch; returns how many rows moved (0: nothing left). */
    async expireBatch(b: ExpiryBatch): Promise<number> {
      // The column name is one of two literals (the Deadline type), never user input.
      const col = b.deadline === 'hold_expires_at' ? 'hold_expires_at' : 'link_expires_at';
      return db.transaction(async (tx) => {
        const due = await tx.query<{ id: string; status: Status; deadline: Date }>(
          `SELECT id, status, ${col} AS deadline FROM payment_requests
            WHERE status IN (${statusLiterals(b.from)}) AND pending_action IS NULL AND ${col} <= $1::timestamptz
            ORDER BY ${col}, id LIMIT $2
            FOR UPDATE SKIP LOCKED`,
          [b.now.toISOString(), b.limit],
        );
        const moved = await applyStatusChanges(
          tx,
          due.rows.map((row) => ({
            id: row.id,
            from: [row.status],
            to: b.to,
            actor: { source: 'job' as const, actor: 'expire_payment_requests' },
            detail: { trigger: b.trigger, [col]: row.deadline },
          })),
        );
        return moved.length;
      });
    },
  };
}
export type ExpiryRepository = ReturnType<typeof expiryRepository>;
