import path from 'node:path';
import { type Database, migrate, openDatabase } from '../../src/db/index.ts';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.ts';
import { pgliteDataDir } from './payreq-process.ts';

/**
 * A database a test and the `payreq` processes it starts both open: a PGlite directory under
 * `scratchDir` (one process at a time: the test closes it before a child opens it), or a fresh
 * PostgreSQL database. `drop()` removes what was made; call it in after().
 */
export function sharedDatabases(scratchDir: string) {
  const made: TestDatabase[] = [];
  return {
    async create(name = 'db'): Promise<{ url: string; open(): Promise<Database> }> {
      if (ENGINE === 'postgres') {
        const pg = await createTestDatabase();
        made.push(pg);
        return { url: pg.url, open: async () => openDatabase({ engine: 'postgres', url: pg.url }) };
      }
      const dir = pgliteDataDir(path.join(scratchDir, name));
      return {
        url: `pglite://${dir}`,
        open: async () => {
          const db = await openDatabase({ engine: 'pglite', dir });
          await migrate(db);
          return db;
        },
      };
    },
    async drop(): Promise<void> {
      for (const pg of made) await pg.drop();
    },
  };
}
