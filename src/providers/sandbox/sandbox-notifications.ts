import type { Database, Queryable } from '../../db/index.ts';

// The sandbox's outgoing notifications (its IPNs): the rows the queue's sandbox_notification
// jobs deliver, read when a job comes and settled with it.

/** A notification to post: the row, as the queue's job for it came to this instance. */
export interface PendingNotification {
  id: string;
  url: string;
  body: string;
}

/** A notification still to deliver; undefined once delivered. */
export async function pendingNotification(db: Database, id: string): Promise<PendingNotification | undefined> {
  const r = await db.query<PendingNotification>(
    'SELECT id::text AS id, url, body FROM sandbox_notifications WHERE id = $1::bigint AND delivered_at IS NULL',
    [id],
  );
  return r.rows[0];
}

/** Delivered at its `attempts`-th try: written with the job's settlement. */
export async function recordDelivered(q: Queryable, id: string, attempts: number): Promise<void> {
  await q.query(
    `UPDATE sandbox_notifications SET delivered_at = now(), last_error = NULL, attempts = $2
      WHERE id = $1::bigint AND delivered_at IS NULL`,
    [id, attempts],
  );
}

/** A failed try, and when the next one is due (the last one's time if given up). */
export async function recordFailed(
  q: Queryable,
  id: string,
  error: string,
  next: Date,
  attempts: number,
): Promise<void> {
  await q.query(
    `UPDATE sandbox_notifications SET last_error = $2, next_attempt_at = $3::timestamptz, attempts = $4
      WHERE id = $1::bigint AND delivered_at IS NULL`,
    [id, error.slice(0, 500), next, attempts],
  );
}
