import { mkdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../config/index.ts';
import { migrate, openDatabase, repositories } from '../db/index.ts';
import { DataDirBusyError, sendToService, socketPathFor, tryLock } from '../instance/index.ts';
import { CliError } from './cli-error.ts';
import type { CommandResult } from './command-context.ts';
import { MAX_INPUT_FILE_BYTES } from './read-input-file.ts';
import { executeCommand, failure, type ParsedInvocation } from './run-command.ts';

/**
 * How long a command waits for one holder of a data directory that does not answer: a
 * short-lived CLI command finishing, or a service still migrating before it listens.
 */
const BUSY_WAIT_MS = 15_000;

/** The user's standard output, for a command that writes as it goes. */
type Output = (chunk: string) => Promise<void>;

/** Opens the database itself, runs the command, closes. */
async function runOnOwnConnection(parsed: ParsedInvocation, config: Config, out?: Output): Promise<CommandResult> {
  // A command lives for one run: embedded PGlite gets the small buffer pool (pglite-database.ts).
  const db = await openDatabase(config.database, 'command');
  try {
    // A command on a new database works at once, as after a first `serve`.
    if (parsed.spec.needs === 'schema') await migrate(db);
    return await executeCommand(parsed, { config, db, repos: repositories(db), ...(out ? { out } : {}) });
  } finally {
    await db.close();
  }
}

/**
 * A running service holds the directory, so the command goes to it; with none,
 * this process takes the lock and opens the directory itself.
 */
async function runOnDataDir(
  dir: string,
  parsed: ParsedInvocation,
  argv: readonly string[],
  config: Config,
  out?: Output,
) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  let deadline = Date.now() + BUSY_WAIT_MS;
  let lastHolder: number | undefined;
  // A streamed file too large to travel to a running service: this process must hold the directory.
  const ownOnly = parsed.args.stream !== undefined && parsed.args.file === undefined;
  for (;;) {
    const answer = ownOnly
      ? undefined
      : await sendToService(socketPathFor(dir), argv, parsed.args.stdin, parsed.args.file);
    if (answer) return answer;
    const lock = tryLock(dir, 'cli');
    if ('release' in lock) {
      try {
        return await runOnOwnConnection(parsed, config, out);
      } finally {
        lock.release();
      }
    }
    if (ownOnly && lock.role === 'serve') {
      throw new CliError(
        `the running service (process ${lock.pid}) holds ${dir}, and this file is over ${MAX_INPUT_FILE_BYTES / 1024} kB, more than a command sends it: import it on the back office's Payouts page, or stop the service first`,
      );
    }
    // Commands queued on the directory take turns: the wait restarts whenever the lock
    // changes hands, and runs out only when one holder keeps it too long.
    if (lock.pid !== lastHolder) {
      lastHolder = lock.pid;
      deadline = Date.now() + BUSY_WAIT_MS;
    }
    if (Date.now() >= deadline) {
      const busy = new DataDirBusyError(dir, lock);
      throw new CliError(`${busy.message}, which does not answer on ${socketPathFor(dir)}`);
    }
    await sleep(100 + Math.random() * 100);
  }
}

/** Runs a database command from the command line, wherever its database is. */
export async function runCli(
  parsed: ParsedInvocation,
  argv: readonly string[],
  config: Config,
  out?: Output,
): Promise<CommandResult> {
  try {
    const location = config.database;
    if (location.engine === 'pglite' && location.dir) {
      return await runOnDataDir(location.dir, parsed, argv, config, out);
    }
    const result = await runOnOwnConnection(parsed, config, out);
    if (location.engine === 'pglite') {
      return {
        ...result,
        stderr: `note: DATABASE_URL is pglite://memory, nothing outlives this command\n${result.stderr}`,
      };
    }
    return result;
  } catch (err) {
    return failure(err);
  }
}
