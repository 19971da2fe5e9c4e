import type { Queryable } from './database.ts';

export interface StoredResponse {
  fingerprint: string;
  status_code: number | null;
  response_body: string | null;
  /** The first request's method and path, which the key belongs to (null: stored before it was kept). */
  request_line: string | null;
}

/** How long a key replays its first response. */
export const IDEMPOTENCY_TTL = '24 hours';
/** A claim with no response after this long belongs to a request that died: it may be taken over. */
const ABANDONED_CLAIM = '2 minutes';

/**
 * When a stored key may be taken over by a new request: it expired, or its claim was abandoned
 * by a request that died (a released key is not abandoned: only its own request takes it
 * over). One text, used by claim(), store() and the create statements (CREATE_SQL,
 * CREATE_MANY_SQL), so that the single-statement create takes over exactly the keys a claim
 * would. Qualified by the table name, as an ON CONFLICT ... WHERE needs.
 */
export const KEY_TAKEOVER = `(idempotency_keys.created_at < now() - interval '${IDEMPOTENCY_TTL}'
  OR (idempotency_keys.status_code IS NULL AND NOT idempotency_keys.released
      AND idempotency_keys.created_at < now() - interval '${ABANDONED_CLAIM}'))`;

export function idempotencyRepository(db: Queryable) {
  return {
    /**
     * Takes the key for this request. Returns true when this request owns it and must run;
     * false when another request holds or held it (then read it with find()). An expired key,
     * or a claim abandoned by a crashed request, is taken over.
     */
    async claim(tenantId: string, key: string, fingerprint: string, requestLine?: string): Promise<boolean> {
      // A released key (its request ended in a 5xx, in doubt, or a 409) is taken over only by
      // the same request: the key stays bound to the body it was first used with.
      const r = await db.query(
        `INSERT INTO idempotency_keys (tenant_id, key, fingerprint, request_line) VALUES ($1, $2, $3, $4)
         ON CONFLICT (tenant_id, key) DO UPDATE
           SET fingerprint = EXCLUDED.fingerprint, status_code = NULL, response_body = NULL, created_at = now(),
               released = false, request_line = EXCLUDED.request_line
         WHERE ${KEY_TAKEOVER}
            OR (idempotency_keys.released AND idempotency_keys.fingerprint = EXCLUDED.fingerprint)
         RETURNING 1`,
        [tenantId, key, fingerprint, requestLine ?? null],
      );
      return r.rowCount > 0;
    },
    /**
     * Claims the key and stores its response at once, for an answer known before any work is
     * done (a refused body). Returns false, storing nothing, when the key is not free: as claim().
     */
    async store(
      tenantId: string,
      key: string,
      fingerprint: string,
      statusCode: number,
      body: string,
    ): Promise<boolean> {
      const r = await db.query(
        `INSERT INTO idempotency_keys (tenant_id, key, fingerprint, status_code, response_body) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (tenant_id, key) DO UPDATE
           SET fingerprint = EXCLUDED.fingerprint, status_code = EXCLUDED.status_code,
               response_body = EXCLUDED.response_body, created_at = now()
         WHERE ${KEY_TAKEOVER}
         RETURNING 1`,
        [tenantId, key, fingerprint, statusCode, body],
      );
      return r.rowCount > 0;
    },
    async find(tenantId: string, key: string): Promise<StoredResponse | undefined> {
      const r = await db.query<StoredResponse>(
        `SELECT fingerprint, status_code, response_body, request_line
           FROM idempotency_keys WHERE tenant_id = $1 AND key = $2`,
        [tenantId, key],
      );
      return r.rows[0];
    },
    async complete(tenantId: string, key: string, statusCode: number, body: string): Promise<void> {
      await db.query(
        'UPDATE idempotency_keys SET status_code = $3, response_body = $4 WHERE tenant_id = $1 AND key = $2',
        [tenantId, key, statusCode, body],
      );
    },
    /**
     * Lets the same request run again under the key: it ended in a state a retry should not
     * replay (a 5xx, an operation in doubt whose true outcome the retry will tell, a 409). The
     * key stays bound to that request's body: another body under it is still refused.
     */
    async release(tenantId: string, key: string): Promise<void> {
      await db.query(
        'UPDATE idempotency_keys SET released = true WHERE tenant_id = $1 AND key = $2 AND status_code IS NULL',
        [tenantId, key],
      );
    },
    /** Frees a key whose stored response names what no longer exists (a request deleted since). */
    async forget(tenantId: string, key: string): Promise<void> {
      await db.query('DELETE FROM idempotency_keys WHERE tenant_id = $1 AND key = $2', [tenantId, key]);
    },
    async purgeExpired(): Promise<number> {
      const r = await db.query(`DELETE FROM idempotency_keys WHERE created_at < now() - interval '${IDEMPOTENCY_TTL}'`);
      return r.rowCount;
    },
  };
}
