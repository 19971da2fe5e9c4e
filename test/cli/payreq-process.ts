import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The real executable, run as a user would: a separate process, no mocks. */
export const BIN = fileURLToPath(new URL('../../bin/payreq.js', import.meta.url));

/**
 * A PGlite data directory for the children, already migrated when the runner made a migrated
 * template (PAYREQ_TEST_PGLITE_TEMPLATE, a tar of a data directory): without it, the first
 * child on an empty directory runs initdb and every migration inside WASM, about 10 s of CPU.
 * For a test about starting on an empty directory, pass the path without this.
 */
export function pgliteDataDir(dir: string): string {
  const archive = process.env.PAYREQ_TEST_PGLITE_TEMPLATE;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (archive && existsSync(archive) && readdirSync(dir).length === 0) {
    // The archive's members are absolute (/base/..., /global/...): tar makes them relative to -C.
    execFileSync('tar', ['-xf', archive, '-C', dir], { stdio: ['ignore', 'ignore', 'ignore'] });
  }
  return dir;
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Only what a test sets: no DATABASE_URL, PORT or .env of the developer's leaks in. */
export function cliEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TMPDIR: process.env.TMPDIR,
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    ...extra,
  };
}

/** A scratch directory (the children's working directory, PGlite directories) removed by cleanup(). */
export function scratchDir(): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'payreq-cli-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * V8 compiles PGlite's hot WASM functions again with its optimizing tier, in background threads;
 * a command that lives a second or two ends before that pays off. The children run with the
 * baseline tier only: the same code and the same answers, one command 1.9 -> 1.1 s of CPU and
 * 220 -> 140 MB. Nothing a test checks (output, exit status, files, timings it awaits) depends
 * on the tier. Users' commands keep V8's defaults, which `serve` and `job run` need.
 */
const NODE_FLAGS = ['--liftoff-only'];

/**
 * How long a child may take before it is taken for hung. Only a hang guard, never a speed
 * check: on a loaded 2-core machine whose memory was slow, a `serve` took over 40 s to start.
 */
const HANG_MS = 120_000;

const children = new Set<ChildProcess>();

function start(args: readonly string[], env: NodeJS.ProcessEnv, cwd: string, input?: string): ChildProcess {
  const stdin = input === undefined ? 'ignore' : 'pipe';
  const child = spawn(process.execPath, [...NODE_FLAGS, BIN, ...args], { env, cwd, stdio: [stdin, 'pipe', 'pipe'] });
  if (input !== undefined) child.stdin?.end(input);
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

/** Kills whatever a test left running; for after() hooks. */
export function killAll(): void {
  for (const c of children) c.kill('SIGKILL');
}

/** Runs `payreq ARGS` to the end (bounded by timeoutMs). */
export function payreq(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  timeoutMs = HANG_MS,
  input?: string,
): Promise<Run & { ms: number }> {
  const t0 = Date.now();
  const child = start(args, env, cwd, input);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d));
  child.stderr?.on('data', (d: Buffer) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - t0 });
    }),
  );
}

/** The one JSON object a successful `--json` command prints. */
export function parseJson<T = Record<string, unknown>>(r: Run): T {
  assert.equal(r.code, 0, `exit ${r.code}, stderr: ${r.stderr}`);
  assert.equal(r.stdout.trim().split('\n').length, 1, `one line of JSON expected, got: ${r.stdout}`);
  return JSON.parse(r.stdout) as T;
}

/** A failure the contract's way: exit 1, nothing on stdout, one line on stderr, no stack. */
export function assertFails(r: Run, message: RegExp): void {
  assert.equal(r.code, 1, `expected exit 1, got ${r.code}; stdout: ${r.stdout}`);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr.trim().split('\n').length, 1, `one stderr line expected, got: ${r.stderr}`);
  assert.match(r.stderr, message);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** `payreq serve` as a child process, started and ready (its banner printed on stderr). */
export class ServeProcess {
  stdout = '';
  stderr = '';
  readonly child: ChildProcess;
  /** Its exit code, or the signal that ended it: a test's message then says which. */
  readonly exited: Promise<number | NodeJS.Signals | null>;

  private constructor(args: readonly string[], env: NodeJS.ProcessEnv, cwd: string) {
    this.child = start(args, env, cwd);
    this.child.stdout?.on('data', (d: Buffer) => (this.stdout += d));
    this.child.stderr?.on('data', (d: Buffer) => (this.stderr += d));
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve(code ?? signal)));
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  /** Started, not waited for: a test that acts during start-up. */
  static launch(env: NodeJS.ProcessEnv, cwd: string): ServeProcess {
    return new ServeProcess(['serve'], env, cwd);
  }

  /** Resolves once it listens; rejects with its output if it exits or takes too long. */
  static async start(env: NodeJS.ProcessEnv, cwd: string, timeoutMs = HANG_MS): Promise<ServeProcess> {
    const s = ServeProcess.launch(env, cwd);
    try {
      await s.stderrMatches(/payreq listening on .*\n/, timeoutMs);
    } catch (err) {
      s.child.kill('SIGKILL');
      throw err;
    }
    return s;
  }

  /** How many of the service's log lines say it ran `command` (e.g. `"key list"`) for a CLI. */
  controlRuns(command: string): number {
    return this.stdout
      .split('\n')
      .filter((l) => l.includes('"CLI command through the control channel"') && l.includes(command)).length;
  }

  /**
   * Asserts the service ran `command` for a CLI exactly `count` times, once that many lines have
   * arrived: it logs each command as it takes it, but its logger writes asynchronously and the pipe
   * delivers when it does, so a line may arrive after the CLI process that asked has ended.
   */
  async ranThroughControl(command: string, count: number, message?: string, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.controlRuns(command) < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    assert.equal(this.controlRuns(command), count, message ?? `${command} ran in the service ${count} time(s)`);
  }

  /** Resolves once its stderr matches; rejects with its output if it exits or takes too long. */
  async stderrMatches(pattern: RegExp, timeoutMs = HANG_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let ended: number | NodeJS.Signals | null | undefined;
    this.exited.then((c) => (ended = c));
    while (!pattern.test(this.stderr)) {
      if (ended !== undefined || Date.now() > deadline) {
        throw new Error(
          `serve: no ${pattern} (${ended === undefined ? 'still running' : `ended: ${ended}`}):\n${this.stdout}\n${this.stderr}`,
        );
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Graceful stop (SIGTERM); resolves with the exit code, or the signal that ended it. */
  async stop(timeoutMs = 15_000): Promise<number | NodeJS.Signals | null> {
    if (this.child.exitCode !== null || this.child.signalCode !== null)
      return this.child.exitCode ?? this.child.signalCode;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}
