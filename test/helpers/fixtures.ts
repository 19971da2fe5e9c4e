import type { Database } from '../../src/db/index.js';
import type { Status } from '../../src/domain/index.js';

/**
 * Puts a request in a status no API call can reach yet (AUTHORISED_TO_VALIDATE needs the
 * guest and the daily job). Arranges a test's starting point; never used to check a result.
 */
export async function arrangeStatus(db: Database, id: string, status: Status, extra: { amountCaptured?: number } = {}) {
  await db.query(
    'UPDATE payment_requests SET status = $2, amount_captured = COALESCE($3, amount_captured) WHERE id = $1',
    [id, status, extra.amountCaptured ?? null],
  );
}
