import type { Config } from '../config/index.ts';
import type { AppContext } from '../context.ts';
import type { Database, Repositories } from '../db/index.ts';
import type { CommandResult } from '../instance/index.ts';

/** What a command runs against: the CLI's own connection, or the running service's. */
export interface CommandContext {
  config: Config;
  db: Database;
  repos: Repositories;
  /**
   * Set inside the running service: a key whose status changed is dropped from its auth cache,
   * so a disable or revoke applies to the very next request rather than after AUTH_CACHE_MS.
   */
  keyChanged?: (prefix: string) => void;
  /**
   * Set inside the running service: a tenant whose settings changed has its keys dropped from
   * the auth cache, so the next API call sees them (other processes learn of it by the
   * database's notice).
   */
  tenantChanged?: (tenantId: string) => void;
  /** Set inside the running service: its own context (provider, secrets), for jobs. */
  app?: AppContext;
  /**
   * Set when the command runs in the process the user started: its standard output, written
   * as the command goes (an export of a million rows never sits in memory). Absent inside the
   * service, which answers a command in one piece over its channel.
   */
  out?: (chunk: string) => Promise<void>;
}

/** Option values and positionals after parsing, as a command reads them. */
export interface CommandArgs {
  /** A `multiple` option's values come as a list, in the order given. */
  options: Readonly<Record<string, string | boolean | string[] | undefined>>;
  positionals: readonly string[];
  /** Standard input, read only for a command whose `stdin` option was given (a secret). */
  stdin?: string;
  /** The bytes of the file named by the command's `file` option, read by the invoking process. */
  file?: Buffer;
  /**
   * The file named by the command's `streamed` positional, opened by the invoking process and
   * read as it goes (a report of a hundred thousand lines never sits in memory). Absent inside a
   * running service, which gets a small file's bytes as `file` instead.
   */
  stream?: () => AsyncIterable<Uint8Array>;
}

/** A command's answer in both forms; the runner prints one of them (`--json` or not). */
export interface Outcome {
  json: Record<string, unknown>;
  text: string;
  /**
   * With `--json`, lines printed before `json`, one JSON object each (a report's findings,
   * `json` its summary).
   */
  jsonLines?: readonly Record<string, unknown>[];
  /** A command whose answer is a verdict (books check) exits 1 when it is not clean; 0 otherwise. */
  exitCode?: number;
  /** Printed exactly as it is in place of `text` or `json` (a document; '' once written to `out`). */
  raw?: string;
}

export type { CommandResult };

export interface OptionSpec {
  type: 'string' | 'boolean';
  /** May be given several times (`--tenant A --role viewer --tenant B --role manager`). */
  multiple?: boolean;
}

export interface CommandSpec {
  /** The words that select it: `key create`. */
  name: string;
  summary: string;
  /** Usage lines shown by `--help`, after the synopsis. */
  usage: string;
  help?: string;
  options: Record<string, OptionSpec>;
  /** Names of the positional arguments it takes, all required. */
  positionals?: readonly string[];
  /** Names of positional arguments that may follow the required ones, e.g. `[NAME]`. */
  optionalPositionals?: readonly string[];
  /**
   * `schema`: needs a migrated database (the CLI migrates first when it opens one itself);
   * `raw`: needs a database as it is (migrate); `service`: not a database command (serve).
   */
  needs: 'schema' | 'raw' | 'service';
  /**
   * The boolean option (e.g. `password-stdin`) that makes the command read standard input:
   * secrets never travel in argv, which every user of the machine can see.
   */
  stdin?: string;
  /**
   * The string option (e.g. `file`) naming a file to read. The process the user ran reads it,
   * with the user's working directory and permissions, and the bytes travel with the command
   * (to the running service too): the service never opens a path it was handed.
   */
  file?: string;
  /**
   * The positional (e.g. `FILE`) naming a file the command reads as a stream, in the process the
   * user ran. A file small enough to travel in one control-channel request goes as `file` bytes
   * too, so a running service can take it; a larger one only where this process opens the
   * database itself.
   */
  streamed?: string;
  run?: (ctx: CommandContext, args: CommandArgs) => Promise<Outcome>;
}
