import path from 'node:path';
import type { Database } from './database.ts';
import { openPglite, type PgliteRole } from './pglite-database.ts';
import { openPostgres } from './postgres-database.ts';

export type DatabaseLocation =
  | {
      engine: 'postgres';
      url: string;
      /** DATABASE_DIRECT_URL: the server itself when `url` is a connection pooler's; unset: `url`. */
      directUrl?: string;
    }
  | { engine: 'pglite'; dir: string | undefined /* undefined: in memory */ };

/** DATABASE_URL picks the engine: `postgres://`, `postgresql://`, `pglite://DIR`, `pglite://memory`. */
export function parseDatabaseUrl(url: string): DatabaseLocation {
  if (/^postgres(ql)?:\/\//.test(url)) return { engine: 'postgres', url };
  const m = /^pglite:\/\/(.*)$/.exec(url);
  if (!m)
    throw new Error(
      `DATABASE_URL must start with postgres://, postgresql:// or pglite:// (got ${url.split(':')[0]}:...)`,
    );
  const rest = m[1] ?? '';
  if (rest === 'memory' || rest === 'memory/') return { engine: 'pglite', dir: undefined };
  if (rest === '') throw new Error('DATABASE_URL pglite:// needs a directory, e.g. pglite://./data/pglite');
  return { engine: 'pglite', dir: path.resolve(rest) };
}

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
