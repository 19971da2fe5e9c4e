import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import type { Config } from './config/index.ts';
import type { AppContext } from './context.ts';
import { type Database, migrate, openDatabase, repositories } from './db/index.ts';
import {
  type CommandHandler,
  createDemoDataOnce,
  DataDirBusyError,
  demoBanner,
  startControlServer,
  tryLock,
  withSecretKey,
} from './instance/index.ts';
import { startScheduler } from './jobs/index.ts';

/** How long `serve` waits for a CLI command that holds the PGlite directory to finish. */
const CLI_LOCK_WAIT_MS = 15_000;
/** A shutdown stuck on a hung request must still end. */
const SHUTDOWN_TIMEOUT_MS = 10_000;

/** What a command run through the control channel works with: this service's own parts. */
export interface ServiceParts {
  config: Config;
  db: Database;
  app: AppContext;
  log: FastifyInstance['log'];
}

/**
 * How CLI commands sent through the control channel are run, given by the command line that
 * starts the service (`payreq serve`): the service itself knows no command.
 */
export type ControlCommands = (service: ServiceParts) => CommandHandler;

export interface RunningService {
  app: FastifyInstance;
  /** Where it listens, as seen from this machine. */
  url: string;
  /** Stops accepting, lets in-flight work end, closes the database, frees the directory. */
  close(): Promise<void>;
}

type Cleanup = () => unknown;

async function holdDataDir(dir: string, cleanups: Cleanup[], print: (text: string) => void): Promise<void> {
  let deadline = Date.now() + CLI_LOCK_WAIT_MS;
  let lastHolder: number | undefined;
  let waitSaid = false;
  for (;;) {
    const got = tryLock(dir, 'serve');
    if ('release' in got) {
      cleanups.push(() => got.release());
      return;
    }
    // CLI commands take turns and finish in a moment: wait while the lock changes hands.
    if (got.pid !== lastHolder) {
      lastHolder = got.pid;
      deadline = Date.now() + CLI_LOCK_WAIT_MS;
    }
    // Another service: no point waiting.
    if (got.role !== 'cli' || Date.now() >= deadline) {
      const busy = new DataDirBusyError(dir, got);
      throw new Error(`${busy.message}: stop it first, or give this one another DATABASE_URL`);
    }
    // Said once: a start that pauses says why.
    if (!waitSaid) print(`waiting for the payreq command (process ${got.pid}) that holds ${dir}\n`);
    waitSaid = true;
    await new Promise((r) => setTimeout(r, 100));
  }
}

function localUrl(app: FastifyInstance, config: Config): string {
  const a = app.server.address() as AddressInfo;
  const host = ['0.0.0.0', '::'].includes(a.address) ? 'localhost' : a.family === 'IPv6' ? `[${a.address}]` : a.address;
  return `${config.tlsCert ? 'https' : 'http'}://${host}:${a.port}`;
}

function describeDatabase(config: Config): string {
  // Never the PostgreSQL URL itself: it carries the password.
  const d = config.database;
  if (d.engine === 'pglite') return `pglite ${d.dir ?? 'in memory'}`;
  return d.directUrl && d.directUrl !== d.url ? 'postgres through a pooler' : 'postgres';
}

/**
 * Starts the service: takes the PGlite directory, migrates, prepares the first
 * development start, listens, and opens the control channel for CLI commands. A failure on
 * the way undoes what was done, so no lock or socket outlives a failed start.
 */
export async function startService(
  initialConfig: Config,
  commands: ControlCommands,
  // The terminal's stream: stdout carries the JSON log lines, which a banner would corrupt.
  print: (text: string) => void = (t) => process.stderr.write(t),
): Promise<RunningService> {
  const cleanups: Cleanup[] = [];
  let closing: Promise<void> | undefined;
  // Started first on close, awaited in its turn: from the first moment of a stop, new requests
  // get 503 (the balancer sees /readyz fail) and requests in flight finish, while the job or
  // e-mail in progress finishes too.
  let httpClosing: Promise<void> | undefined;
  let closeHttp: () => Promise<void> = async () => {};
  const close = () => {
    closing ??= (async () => {
      // Its error, if any, is reported when its cleanup awaits it below.
      closeHttp().catch(() => {});
      // Reverse order: control channel, HTTP, database, lock.
      for (const cleanup of cleanups.reverse()) {
        try {
          await cleanup();
        } catch (err) {
          process.stderr.write(`error while stopping: ${(err as Error).message}\n`);
        }
      }
    })();
    return closing;
  };

  try {
    const dir = initialConfig.database.engine === 'pglite' ? initialConfig.database.dir : undefined;
    if (dir) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      await holdDataDir(dir, cleanups, print);
    }
    const db = await openDatabase(initialConfig.database, 'service', { timeoutMs: initialConfig.databaseTimeoutMs });
    cleanups.push(() => db.close());
    const applied = await migrate(db);
    const repos = repositories(db);
    const config = await withSecretKey(initialConfig, repos);

    const app = await buildApp({ config, db });
    closeHttp = () => (httpClosing ??= app.close());
    cleanups.push(() => closeHttp());
    if (applied.length > 0) app.log.info({ applied }, 'migrations applied');
    await app.listen({ host: config.host, port: config.port });
    const demo = await createDemoDataOnce(config, repos);
    if (config.workers) {
      // Every instance runs it: the slot claim keeps N instances from queuing a slot twice, and
      // the queue (the app's worker, app.ts) runs each run once. Stopped before the database
      // closes (cleanups run in reverse).
      const scheduler = startScheduler(app.payreq, app.log, { onQueued: () => app.wakeQueue() });
      cleanups.push(() => scheduler.stop());
    }

    if (dir) {
      const control = await startControlServer(dir, commands({ config, db, app: app.payreq, log: app.log }));
      cleanups.push(() => control.close());
    }

    const url = localUrl(app, config);
    // A production start that will refuse every plain HTTP request says so before the first one.
    const plainHttpRefused =
      config.production && !config.tlsCert && (config.trustProxy === false || config.trustProxy === 0);
    if (plainHttpRefused) print(PLAIN_HTTP_REFUSED);
    // One write, the "listening" line last: whoever waits for it has the whole banner.
    print(
      `${demo ? demoBanner(demo) : ''}payreq listening on ${url} (${config.nodeEnv}, ${describeDatabase(config)})${config.apiDocs ? `; API docs: ${config.publicBaseUrl}/api/docs` : ''}\n`,
    );
    return { app, url, close };
  } catch (err) {
    await close();
    throw err;
  }
}

export const PLAIN_HTTP_REFUSED =
  'note: NODE_ENV=production answers plain HTTP with 403 https_required. Behind a proxy that ends TLS, ' +
  'set TRUST_PROXY to it (its X-Forwarded-Proto is then believed), or give TLS_CERT and TLS_KEY; ' +
  'for a local try over plain HTTP, run with NODE_ENV=development\n';

/**
 * `payreq serve`: runs until SIGINT or SIGTERM, then shuts down gracefully. The handlers are
 * in place before start-up begins, so before the "listening" line: a supervisor may send
 * SIGTERM the moment it reads that line, and a signal that found no handler would end the
 * process at once, with nothing finished or closed. A signal during start-up lets the start
 * finish (a migration is not cut off) and then stops; a second one ends it at once.
 */
export async function serve(config: Config, commands: ControlCommands): Promise<void> {
  let signalled: (signal: NodeJS.Signals) => void = () => {};
  const stopSignal = new Promise<NodeJS.Signals>((resolve) => (signalled = resolve));
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    // A second signal: the operator does not want to wait.
    if (stopping) process.exit(130);
    stopping = true;
    signalled(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const service = await startService(config, commands);
  const signal = await stopSignal;
  service.app.log.info({ signal }, 'shutting down');
  setTimeout(() => {
    process.stderr.write('error: shutdown took too long, stopping anyway\n');
    process.exit(1);
  }, SHUTDOWN_TIMEOUT_MS).unref();
  await service.close();
}
