import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

/**
 * A PostgreSQL server of the bench's own, for the figures the shared server cannot give:
 * `pg_stat_statements` has to be loaded when the server starts, and the machine's server was
 * started without it (changing that would restart everybody's database). Same binaries, same
 * disk, durable commits as the shared server; only the statistics differ.
 */
export interface PrivatePostgres {
  /** A superuser URL on the `postgres` database. */
  adminUrl: string;
  /** The server's own log (its standard error): where `auto_explain` writes its plans. */
  logFile: string;
  stop(): Promise<void>;
}

/** Why no private server could start (no PostgreSQL binaries here), or the server. */
export async function startPrivatePostgres(): Promise<PrivatePostgres | { unavailable: string }> {
  let bindir: string;
  try {
    bindir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
  } catch {
    return { unavailable: 'pg_config is not on the PATH: no PostgreSQL binaries to start a server with' };
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'payreq-bench-pgstat-'));
  // PostgreSQL refuses to run as root: as root, the server runs as the `postgres` account.
  const account: { uid?: number; gid?: number } = {};
  if (process.getuid?.() === 0) {
    account.uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    account.gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, account.uid, account.gid);
  }
  const data = path.join(dir, 'data');
  execFileSync(
    path.join(bindir, 'initdb'),
    ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-instructions'],
    { stdio: 'ignore', ...account },
  );
  const port = await freePort();
  const logFile = path.join(dir, 'server.log');
  const logFd = openSync(logFile, 'a');
  const server: ChildProcess = spawn(
    path.join(bindir, 'postgres'),
    [
      '-D',
      data,
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'shared_preload_libraries=pg_stat_statements',
      // Statements run by the triggers' functions too, each on its own line.
      '-c',
      'pg_stat_statements.track=all',
      '-c',
      'pg_stat_statements.max=10000',
      // Planning timed apart from execution: a statement planned again at every call shows.
      '-c',
      'pg_stat_statements.track_planning=on',
      '-c',
      'max_connections=200',
      '-c',
      'shared_buffers=256MB',
    ],
    { stdio: ['ignore', logFd, logFd], ...account },
  );
  closeSync(logFd);
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const stop = async () => {
    if (server.exitCode === null) {
      const exited = new Promise((r) => server.once('exit', r));
      // SIGINT: the fast shutdown, every session ended at once.
      server.kill('SIGINT');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForServer(adminUrl, server);
  } catch (e) {
    await stop();
    throw e;
  }
  return { adminUrl, logFile, stop };
}

async function waitForServer(url: string, server: ChildProcess): Promise<void> {
  for (let tries = 0; tries < 300; tries++) {
    if (server.exitCode !== null) throw new Error(`the private PostgreSQL exited (${server.exitCode})`);
    const c = new pg.Client({ connectionString: url });
    try {
      await c.connect();
      await c.query('SELECT 1');
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      await c.end().catch(() => {});
    }
  }
  throw new Error('the private PostgreSQL did not accept connections in 30 s');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}
