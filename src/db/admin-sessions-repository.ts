import { createHash } from 'node:crypto';
import type { Queryable } from './database.ts';

/** What a session's row is known by: the SHA-256 of its id (the id itself is never stored). */
export const sessionIdHash = (sessionId: string) => createHash('sha256').update(sessionId).digest('base64url');

/** One of a user's sessions, as their sessions page lists it. */
export interface UserSessionRow {
  id_hash: string;
  data: Record<string, unknown>;
}

/** Back-office sessions by id; only the id's hash is stored. Expired rows read as absent. */
export function adminSessionsRepository(db: Queryable) {
  return {
    async get(sessionId: string): Promise<Record<string, unknown> | undefined> {
      const r = await db.query<{ data: Record<string, unknown> }>(
        'SELECT data FROM admin_sessions WHERE id_hash = $1 AND expires_at > now()',
        [sessionIdHash(sessionId)],
      );
      return r.rows[0]?.data;
    },
    /**
     * Writes a session. `create: false` only updates a row that is still there: a session ended
     * (signed out elsewhere, its user's password changed) while one of its requests was under
     * way stays ended when that request saves it at its end.
     */
    async set(
      sessionId: string,
      data: Record<string, unknown>,
      expiresAt: Date,
      opts: { create: boolean } = { create: true },
    ): Promise<void> {
      const sql = opts.create
        ? `INSERT INTO admin_sessions (id_hash, data, expires_at) VALUES ($1, $2, $3)
           ON CONFLICT (id_hash) DO UPDATE SET data = EXCLUDED.data, expires_at = EXCLUDED.expires_at`
        : 'UPDATE admin_sessions SET data = $2, expires_at = $3 WHERE id_hash = $1';
      await db.query(sql, [sessionIdHash(sessionId), JSON.stringify(data), expiresAt]);
    },
    async destroy(sessionId: string): Promise<void> {
      await db.query('DELETE FROM admin_sessions WHERE id_hash = $1', [sessionIdHash(sessionId)]);
    },
    /** The user's signed-in sessions not yet expired (idle limits are the caller's to apply). */
    async listForUser(userId: string): Promise<UserSessionRow[]> {
      const r = await db.query<UserSessionRow>(
        "SELECT id_hash, data FROM admin_sessions WHERE data->>'userId' = $1 AND expires_at > now()",
        [userId],
      );
      return r.rows;
    },
    /**
     * Ends every session of a user (disabled, a new password, a reset second factor), signed in
     * or waiting for its second factor (a waiting session knows its user only as pendingUserId:
     * left alive, its code would open a full session on the old password), or every one but the
     * session `keep` (the id of the one asking: a user who changes their own password stays
     * signed in there). Returns how many ended.
     */
    async destroyForUser(userId: string, keep?: string): Promise<number> {
      const r = await db.query(
        `DELETE FROM admin_sessions
          WHERE (data->>'userId' = $1 OR data->>'pendingUserId' = $1) AND id_hash IS DISTINCT FROM $2::text`,
        [userId, keep === undefined ? null : sessionIdHash(keep)],
      );
      return r.rowCount ?? 0;
    },
    /** Ends one session of the user, named by its id's hash; false when it is not theirs or gone. */
    async destroyOfUser(userId: string, idHash: string): Promise<boolean> {
      const r = await db.query("DELETE FROM admin_sessions WHERE id_hash = $1 AND data->>'userId' = $2", [
        idHash,
        userId,
      ]);
      return (r.rowCount ?? 0) > 0;
    },
    async purgeExpired(): Promise<number> {
      const r = await db.query('DELETE FROM admin_sessions WHERE expires_at <= now()');
      return r.rowCount ?? 0;
    },
  };
}
export type AdminSessionsRepository = ReturnType<typeof adminSessionsRepository>;
