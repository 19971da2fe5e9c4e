import { randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../db/index.ts';

/** The window reconcile is checking: its bounds, the requests it listed, how many are left. */
export interface CheckWindow {
  since: Date;
  until: Date;
  touched: number;
  left: number;
}

/** A window this run holds: `lease` names the holder; each page renews it. */
export interface HeldWindow extends CheckWindow {
  lease: string;
}

async function leftIn(q: Queryable): Promise<number> {
  const r = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM reconcile_check_queue');
  return r.rows[0]?.n ?? 0;
}

/**
 * The check window of reconcile_claims (0024_reconcile_check_window.sql): the requests touched
 * in [since, until), listed when it opens and struck off page by page, so a run that stops
 * (its page cap, or a process that died) leaves the next one the rest, in the same order.
 */
export function reconcileCheckRepository(db: Database) {
  return {
    /**
     * The window to check, held by this run: the one in progress once no live run holds it,
     * else a new one over [since, now) listing every request whose ledger changed in it.
     * `busy` (with the window as it stands): another run holds it.
     */
    async take(since: Date, leaseSeconds: number): Promise<HeldWindow | { busy: CheckWindow }> {
      const lease = randomUUID();
      return db.transaction(async (tx) => {
        const resumed = await tx.query<{ since: Date; until: Date; touched: number }>(
          `UPDATE reconcile_check_window SET lease = $1, leased_until = now() + make_interval(secs => $2::int)
            WHERE leased_until <= now() RETURNING since, until, touched`,
          [lease, leaseSeconds],
        );
        const held = resumed.rows[0];
        if (held) return { ...held, left: await leftIn(tx), lease };
        // One window at a time: of two runs opening one, the second waits on the first's row, then finds it.
        const opened = await tx.query<{ since: Date; until: Date }>(
          `INSERT INTO reconcile_check_window (since, until, touched, lease, leased_until)
           VALUES ($1, now(), 0, $2, now() + make_interval(secs => $3::int))
           ON CONFLICT (one) DO NOTHING RETURNING since, until`,
          [since, lease, leaseSeconds],
        );
        const window = opened.rows[0];
        if (!window) {
          const r = await tx.query<{ since: Date; until: Date; touched: number }>(
            'SELECT since, until, touched FROM reconcile_check_window',
          );
          const current = r.rows[0] ?? { since, until: since, touched: 0 };
          return { busy: { ...current, left: await leftIn(tx) } };
        }
        await tx.query('DELETE FROM reconcile_check_queue');
        // The bounds as the window row holds them (a JS Date would drop microseconds).
        const listed = await tx.query(
          `INSERT INTO reconcile_check_queue (payment_request_id)
           SELECT DISTINCT l.payment_request_id FROM money_ledger l, reconcile_check_window w
            WHERE l.updated_at >= w.since AND l.updated_at < w.until`,
        );
        const touched = listed.rowCount ?? 0;
        await tx.query('UPDATE reconcile_check_window SET touched = $1', [touched]);
        return { ...window, touched, left: touched, lease };
      });
    },

    /** The next `size` requests of the window after `after` (all from the start without it), in id order. */
    async page(after: string | undefined, size: number): Promise<string[]> {
      const r = await db.query<{ id: string }>(
        `SELECT payment_request_id::text AS id FROM reconcile_check_queue
          WHERE $1::uuid IS NULL OR payment_request_id > $1::uuid ORDER BY payment_request_id LIMIT $2`,
        [after ?? null, size],
      );
      return r.rows.map((row) => row.id);
    },

    /**
     * Strikes checked requests off the window and renews the lease; answers how many are left,
     * or undefined when the lease was lost (it ran out and another run took the window over).
     */
    async strike(lease: string, ids: readonly string[], leaseSeconds: number): Promise<number | undefined> {
      return db.transaction(async (tx) => {
        const held = await tx.query(
          `UPDATE reconcile_check_window SET leased_until = now() + make_interval(secs => $2::int)
            WHERE lease = $1 RETURNING 1`,
          [lease, leaseSeconds],
        );
        if (held.rows.length === 0) return undefined;
        await tx.query('DELETE FROM reconcile_check_queue WHERE payment_request_id = ANY($1::uuid[])', [ids]);
        return leftIn(tx);
      });
    },

    /** Lets go of the window: closed when nothing is left, otherwise free for the next run at once. */
    async letGo(lease: string): Promise<void> {
      const closed = await db.query(
        `DELETE FROM reconcile_check_window
          WHERE lease = $1 AND NOT EXISTS (SELECT 1 FROM reconcile_check_queue) RETURNING 1`,
        [lease],
      );
      if (closed.rows.length > 0) return;
      await db.query('UPDATE reconcile_check_window SET leased_until = now() WHERE lease = $1', [lease]);
    },
  };
}
export type ReconcileCheckRepository = ReturnType<typeof reconcileCheckRepository>;
