import path from 'node:path';

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
