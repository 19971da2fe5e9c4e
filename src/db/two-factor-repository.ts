import type { Database, Queryable } from './database.ts';

export interface TwoFactorRow {
  user_id: string;
  /** The TOTP secret, sealed (src/secrets) with the user id as its context. */
  secret_sealed: string;
  /** null: enrolment begun, not confirmed with a code yet. */
  confirmed_at: Date | null;
  /** The highest 30-second step a code was accepted for (0: none yet). */
  last_used_step: number;
}

const COLUMNS = 'user_id, secret_sealed, confirmed_at, last_used_step::float8 AS last_used_step';

/** Back-office users' second factor: the sealed TOTP secret and the hashes of recovery codes. */
export function twoFactorRepository(db: Database) {
  async function insertCodes(tx: Queryable, userId: string, hashes: readonly string[]): Promise<void> {
    await tx.query('DELETE FROM admin_recovery_codes WHERE user_id = $1', [userId]);
    await tx.query('INSERT INTO admin_recovery_codes (user_id, code_hash) SELECT $1, h FROM unnest($2::text[]) AS h', [
      userId,
      hashes,
    ]);
  }
  return {
    async find(userId: string): Promise<TwoFactorRow | undefined> {
      const r = await db.query<TwoFactorRow>(`SELECT ${COLUMNS} FROM admin_two_factor WHERE user_id = $1`, [userId]);
      return r.rows[0];
    },

    /**
     * Begins (or begins again) an enrolment with a new secret. false when the user's second
     * factor is confirmed already: it is turned off first, never replaced in passing.
     */
    async begin(userId: string, secretSealed: string): Promise<boolean> {
      const r = await db.query(
        `INSERT INTO admin_two_factor (user_id, secret_sealed) VALUES ($1, $2)
         ON CONFLICT (user_id) DO UPDATE SET secret_sealed = EXCLUDED.secret_sealed, last_used_step = 0, created_at = now()
          WHERE admin_two_factor.confirmed_at IS NULL
         RETURNING user_id`,
        [userId, secretSealed],
      );
      return r.rowCount > 0;
    },

    /**
     * Confirms the enrolment whose secret is still `secretSealed` (a newer one begun meanwhile
     * wins: this answers false), records the step of the code that confirmed it, and stores
     * the recovery codes' hashes, in one transaction.
     */
    async confirm(userId: string, secretSealed: string, step: number, codeHashes: readonly string[]) {
      return db.transaction(async (tx) => {
        const r = await tx.query(
          `UPDATE admin_two_factor SET confirmed_at = now(), last_used_step = $3
            WHERE user_id = $1 AND secret_sealed = $2 AND confirmed_at IS NULL RETURNING user_id`,
          [userId, secretSealed, step],
        );
        if (r.rowCount === 0) return false;
        await insertCodes(tx, userId, codeHashes);
        return true;
      });
    },

    /** Takes `step` as used if it is later than every step used before: one winner per code. */
    async useStep(userId: string, step: number): Promise<boolean> {
      const r = await db.query(
        `UPDATE admin_two_factor SET last_used_step = $2
          WHERE user_id = $1 AND confirmed_at IS NOT NULL AND last_used_step < $2 RETURNING user_id`,
        [userId, step],
      );
      return r.rowCount > 0;
    },

    /** Marks an unused recovery code used; false when it is unknown or used already. */
    async useRecoveryCode(userId: string, codeHash: string): Promise<boolean> {
      const r = await db.query(
        `UPDATE admin_recovery_codes SET used_at = now()
          WHERE user_id = $1 AND code_hash = $2 AND used_at IS NULL
            AND EXISTS (SELECT 1 FROM admin_two_factor WHERE user_id = $1 AND confirmed_at IS NOT NULL)
          RETURNING user_id`,
        [userId, codeHash],
      );
      return r.rowCount > 0;
    },

    /** A new set of recovery codes in place of the old one; false when the second factor is not on. */
    async replaceRecoveryCodes(userId: string, codeHashes: readonly string[]): Promise<boolean> {
      return db.transaction(async (tx) => {
        const on = await tx.query(
          'SELECT 1 FROM admin_two_factor WHERE user_id = $1 AND confirmed_at IS NOT NULL FOR UPDATE',
          [userId],
        );
        if (on.rowCount === 0) return false;
        await insertCodes(tx, userId, codeHashes);
        return true;
      });
    },

    async recoveryCodesLeft(userId: string): Promise<number> {
      const r = await db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM admin_recovery_codes WHERE user_id = $1 AND used_at IS NULL',
        [userId],
      );
      return r.rows[0]?.n ?? 0;
    },

    /** Removes the second factor and its recovery codes; false when there was none. */
    async remove(userId: string): Promise<boolean> {
      return db.transaction(async (tx) => {
        await tx.query('DELETE FROM admin_recovery_codes WHERE user_id = $1', [userId]);
        const r = await tx.query('DELETE FROM admin_two_factor WHERE user_id = $1', [userId]);
        return r.rowCount > 0;
      });
    },
  };
}
export type TwoFactorRepository = ReturnType<typeof twoFactorRepository>;
