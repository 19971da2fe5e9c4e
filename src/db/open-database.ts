import type { DatabaseLocation } from '../database-location/index.ts';
import type { Database } from './database.ts';
import { openPglite, type PgliteRole } from './pglite-database.ts';
import { openPostgres } from './postgres-database.ts';

/**
 * `role` sizes embedded PGlite's buffer pool (a command holds less); `initialData` starts a new
 * PGlite cluster from a `dumpDataDir()` archive instead of an empty one (the test suite starts
 * every file from one migrated copy). `timeoutMs` bounds, on PostgreSQL, the wait for a
 * connection and for each statement's answer (the service passes DATABASE_TIMEOUT_MS); PGlite
 * runs in-process and has nothing to wait for. A PostgreSQL location's `directUrl` is where
 * LISTEN and the migrations go when `url` is a pooler's (postgres-database.ts); PGlite has no
 * pooler and no second address.
 */
export async function openDatabase(
  location: DatabaseLocation,
  role: PgliteRole = 'service',
  options: { timeoutMs?: number; initialData?: Blob } = {},
): Promise<Database> {
  if (location.engine === 'postgres') {
    return openPostgres(location.url, { timeoutMs: options.timeoutMs, directUrl: location.directUrl });
  }
  return openPglite(location.dir, role, options.initialData);
}
