import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../cli/payreq-process.ts';

/** Debian's PgBouncer: sbin is not on every user's PATH. */
export const PGBOUNCER = process.env.PGBOUNCER_BIN ?? '/usr/sbin/pgbouncer';

/** Its version as [major, minor], or undefined where it cannot be run. */
function pgbouncerVersion(): [number, number] | undefined {
  const r = spawnSync(PGBOUNCER, ['--version'], { encoding: 'utf8' });
  const m = /PgBouncer (\d+)\.(\d+)/.exec(r.stdout ?? '');
  return r.status === 0 && m ? [Number(m[1]), Number(m[2])] : undefined;
}

/** Why PgBouncer cannot be used here, or false (for `{ skip }`). */
export function pgbouncerMissing(): string | false {
  return pgbouncerVersion() ? false : `${PGBOUNCER} is not installed (Debian: apt-get install pgbouncer)`;
}

export interface Pgbouncer {
  port: number;
  /** `database` on the server, through PgBouncer (the same user). */
  url(database: string): string;
  /**
   * The local ports of PgBouncer's connections to the server, from its admin console: a session
   * whose `inet_client_port()` is one of them came through the pooler.
   */
  serverPorts(): Promise<Set<number>>;
  /** What it logged (connections, errors). */
  log(): string;
  stop(): Promise<void>;
}

/**
 * PgBouncer in transaction pooling in front of the server of `serverUrl` (TEST_POSTGRES_URL),
 * every database passed through, the server's own user trusted, listening on a free loopback
 * port, as a child process with its files in a directory of its own. `poolSize` server
 * connections per database: few, so that clients keep changing server connection and anything
 * that relies on a session breaks at once. On a PgBouncer that can keep prepared statements
 * across server connections (1.21 and later) that is turned off: payreq must not need it.
 */
export async function startPgbouncer(serverUrl: string, opts: { poolSize?: number } = {}): Promise<Pgbouncer> {
  const server = new URL(serverUrl);
  const user = decodeURIComponent(server.username || 'postgres');
  const version = pgbouncerVersion();
  if (!version) throw new Error(`${PGBOUNCER} cannot be run`);
  const dir = mkdtempSync(path.join(tmpdir(), 'payreq-pgbouncer-'));
  const port = await freePort();
  const [major, minor] = version;
  const ini = path.join(dir, 'pgbouncer.ini');
  writeFileSync(path.join(dir, 'userlist.txt'), `"${user}" ""\n`);
  writeFileSync(
    ini,
    `[databases]
* = host=${server.hostname} port=${server.port || 5432}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = trust
auth_file = ${dir}/userlist.txt
admin_users = ${user}
pool_mode = transaction
default_pool_size = ${opts.poolSize ?? 4}
max_client_conn = 500
${major > 1 || minor >= 21 ? 'max_prepared_statements = 0\n' : ''}`,
  );
  // PgBouncer refuses to run as root: as root (CI's containers) it reads its files, then drops
  // to nobody.
  const asRoot = process.getuid?.() === 0;
  const child: ChildProcess = spawn(PGBOUNCER, [...(asRoot ? ['-u', 'nobody'] : []), ini], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d));
  child.stderr?.on('data', (d: Buffer) => (output += d));
  let gone = false;
  const exited = new Promise<void>((resolve) =>
    child.on('exit', () => {
      gone = true;
      resolve();
    }),
  );
  const url = (database: string) => {
    const u = new URL(serverUrl);
    u.hostname = '127.0.0.1';
    u.port = String(port);
    u.pathname = `/${database}`;
    return u.toString();
  };
  const stop = async () => {
    if (!gone) child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  for (const deadline = Date.now() + 20_000; !/listening on 127\.0\.0\.1:/.test(output); ) {
    if (gone || Date.now() > deadline) {
      await stop();
      throw new Error(`pgbouncer did not start: ${output}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    port,
    url,
    async serverPorts() {
      // The admin console speaks the simple protocol only: a query without parameters.
      const admin = new pg.Client({ connectionString: url('pgbouncer') });
      await admin.connect();
      try {
        const r = await admin.query<{ local_port: number }>('SHOW SERVERS');
        return new Set(r.rows.map((row) => Number(row.local_port)));
      } finally {
        await admin.end();
      }
    },
    log: () => output,
    stop,
  };
}
