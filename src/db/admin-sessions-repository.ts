import { createHash } from 'node:crypto';
import type { Queryable } from './database.js';

const hashOf = (sessionId: string) => createHash('sha256').update(sessionId).digest('base64url');

/** Back-office sessions by id; only the id's hash is stored. Expired rows read as absent. */
export function adminSessionsRepository(db: Queryable) {
  return {
    async get(sessionId: string): Promise<Record<string, unknown> | undefined> {
      const r = await db.query<{ data: Record<string, unknown> }>(
        'SELECT data FROM admin_sessions WHERE id_hash = $1 AND expires_at > now()',
        [hashOf(sessionId)],
      );
      return r.rows[0]?.data;
    },
    async set(sessionId: string, data: Record<string, unknown>, expiresAt: Date): Promise<void> {
      await db.query(
        `INSERT INTO admin_sessions (id_hash, data, expires_at) VALUES ($1, $2, $3)
         ON CONFLICT (id_hash) DO UPDATE SET data = EXCLUDED.data, expires_at = EXCLUDED.expires_at`,
        [hashOf(sessionId), JSON.stringify(data), expiresAt],
      );
    },
    async destroy(sessionId: string): Promise<void> {
      await db.query('DELETE FROM admin_sessions WHERE id_hash = $1', [hashOf(sessionId)]);
    },
    /** Ends every session of a user (disabled, or a new password). */
    async destroyForUser(userId: string): Promise<number> {
      const r = await db.query("DELETE FROM admin_sessions WHERE data->>'userId' = $1", [userId]);
      return r.rowCount ?? 0;
    },
    async purgeExpired(): Promise<number> {
      const r = await db.query('DELETE FROM admin_sessions WHERE expires_at <= now()');
      return r.rowCount ?? 0;
    },
  };
}
export type AdminSessionsRepository = ReturnType<typeof adminSessionsRepository>;
