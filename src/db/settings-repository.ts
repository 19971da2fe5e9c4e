import type { Queryable } from './database.ts';

export function settingsRepository(db: Queryable) {
  return {
    async get(key: string): Promise<string | undefined> {
      const r = await db.query<{ value: string }>('SELECT value FROM instance_settings WHERE key = $1', [key]);
      return r.rows[0]?.value;
    },
    /** Stores `value` unless the key is set already; returns what is stored (first writer wins). */
    async getOrSet(key: string, value: string): Promise<string> {
      await db.query('INSERT INTO instance_settings (key, value) VALUES ($1, $2) ON CONFLICT DO NOTHING', [key, value]);
      return (await this.get(key)) ?? value;
    },
  };
}
