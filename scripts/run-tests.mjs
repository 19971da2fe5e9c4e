#!/usr/bin/env node
// Runs the suite with Node's own test runner on embedded PGlite, then again on PostgreSQL when
// TEST_POSTGRES_URL is set, and ends with one line `N passed, N failed` summed over both runs (CI
// reads it); the exit code is non-zero when anything failed.
// Usage: npm test [-- test/api/create.test.ts test/cli ...]
//
// What this adds to `node --test` (docs/development.md, "Testing"):
// - The sources and tests run as they are: Node strips their types (no type check: `npm run
//   typecheck` does that).
// - A process per test file (node --test's default) pays a Node start, the module graph and a
//   PGlite start each time, twice the CPU of the whole suite. The files of an engine are shared
//   out, by their recent times, between a few long-lived processes, one more than the machine has
//   cores (TEST_CONCURRENCY overrides), each `node --test --test-isolation=none` over its share:
//   one file after another, one top-level test at a time, PGlite databases emptied and reused
//   (test/helpers/pglite-pool.ts). A file with a hook outside any describe block is refused.
// - The migrated database is made once (PGlite: kept until the migrations change; PostgreSQL:
//   per run) and every test database starts from a copy (test/helpers/database-template.ts).
// - A test or hook over TEST_TIMEOUT_S (300) fails (node's --test-timeout) and its file goes on.
//   A file over TEST_FILE_TIMEOUT_S (600), or whose process ends before it is done, fails: its
//   process and everything it started are killed, and a new process takes the files left.
// - The PostgreSQL pass runs only the files whose outcome can depend on the engine
//   (scripts/test-engines.mjs).
// - After each engine it prints the 10 slowest files (wall time and CPU seconds in their test
//   process; CLI children and browsers not counted), to show where to look next.
// Stopping this process (Ctrl-C, kill) stops the test processes and what they started.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  globSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { engineDependentFiles } from './test-engines.mjs';
import { RECORD } from './test-reporter.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const started = Date.now();

const given = process.argv.slice(2);
const isFolder = (p) => existsSync(p) && statSync(p).isDirectory();
/** The test files named, or those of the folders named, or all of them; as paths in the checkout. */
const files = [
  ...new Set(
    (given.length > 0 ? given : ['test'])
      .map((f) => path.relative(root, path.resolve(f)))
      .flatMap((f) => (isFolder(path.join(root, f)) ? globSync(`${f}/**/*.test.ts`, { cwd: root }) : [f])),
  ),
].sort();
const missing = files.filter((f) => !existsSync(path.join(root, f)));
if (missing.length > 0) {
  console.error(`No such test file: ${missing.join(', ')}`);
  process.exit(2);
}
const engines = ['pglite', ...(process.env.TEST_POSTGRES_URL ? ['postgres'] : [])];
if (!process.env.TEST_POSTGRES_URL) console.log('TEST_POSTGRES_URL is not set: running on PGlite only.');
// One more process than cores: a file often waits on what it started (a CLI child, a browser,
// the database server) and the spare process's file computes meanwhile. Four on two cores put
// the CLI process tests past their time limits.
const concurrency = Number(process.env.TEST_CONCURRENCY) || availableParallelism() + 1;
const TEST_TIMEOUT_MS = (Number(process.env.TEST_TIMEOUT_S) || 300) * 1000;
const FILE_TIMEOUT_MS = (Number(process.env.TEST_FILE_TIMEOUT_S) || 600) * 1000;
const scratch = mkdtempSync(path.join(tmpdir(), 'payreq-test-'));

/** The test processes running now, each the leader of its own process group. */
const running = new Set();

/** Kills a test process and everything it started (CLI children, chromium, nginx). */
function killGroup(child) {
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {}
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    for (const child of running) killGroup(child);
    rmSync(scratch, { recursive: true, force: true });
    console.log(`\nstopped by ${signal}`);
    process.exit(1);
  });
}

/** Runs a child to its end and returns its exit code and standard output. */
function run(args, options) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, options);
    let stdout = '';
    child.stdout?.on('data', (d) => {
      stdout += d;
    });
    child.on('exit', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), stdout }));
  });
}

const cwd = root;
const templateCommand = ['test/helpers/database-template-command.ts'];

/**
 * PGlite's migrated archive is kept between runs in the system's temporary directory, named by
 * a hash of what it is made of (the migrations, PGlite's version): a change to either makes a
 * new one, and one left unused for a day is removed. It is written under another name and
 * renamed, so a run never reads half of one.
 */
function pgliteArchivePath() {
  const dir = path.join(tmpdir(), 'payreq-test-templates');
  mkdirSync(dir, { recursive: true });
  const hash = createHash('sha256');
  hash.update(readFileSync(path.join(root, 'node_modules/@electric-sql/pglite/package.json')));
  for (const f of globSync('src/db/migrations/*.sql', { cwd: root }).sort()) {
    hash.update(path.basename(f)).update(readFileSync(path.join(root, f)));
  }
  const dayAgo = Date.now() - 24 * 3600 * 1000;
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).mtimeMs < dayAgo) rmSync(p, { force: true });
  }
  return path.join(dir, `pglite-${hash.digest('hex').slice(0, 16)}.tar`);
}

/** The run's migrated database for `engine`, as the environment the test processes read; {} when there is none. */
async function makeTemplate(engine, count) {
  const t0 = Date.now();
  let archive;
  if (engine === 'pglite') {
    archive = pgliteArchivePath();
    if (existsSync(archive)) {
      utimesSync(archive, new Date(), new Date());
      return { PAYREQ_TEST_PGLITE_TEMPLATE: archive };
    }
  } else if (count < 3) {
    // A copy saves less than making the template costs.
    return {};
  }
  const args = engine === 'pglite' ? ['make', 'pglite', scratch] : ['make', 'postgres'];
  const r = await run([...templateCommand, ...args], { cwd, stdio: ['ignore', 'pipe', 'inherit'] });
  const made = r.stdout.trim().split('\n').pop();
  if (r.code !== 0 || !made) {
    console.log(`no migrated template for ${engine}: each test file migrates its own database`);
    return {};
  }
  console.log(`migrated template for ${engine} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  if (engine === 'postgres') return { PAYREQ_TEST_POSTGRES_TEMPLATE: made };
  renameSync(made, archive);
  return { PAYREQ_TEST_PGLITE_TEMPLATE: archive };
}

/**
 * Each file's time, by engine, kept beside the PGlite archive: the mean of its last time and the
 * one before, and so on, so that one run on a busy machine does not reshuffle the shares.
 */
const historyFile = path.join(tmpdir(), 'payreq-test-templates', 'file-times.json');

function readHistory() {
  try {
    return JSON.parse(readFileSync(historyFile, 'utf8'));
  } catch {
    return {};
  }
}

/**
 * `list` shared out between `n` processes so that they end together: longest file first, each
 * to the process with the least time so far. A file with no time yet is guessed from its size,
 * at the seconds per byte of the files with one.
 */
function shareOut(list, times, n) {
  const known = list.filter((f) => typeof times[f] === 'number');
  const size = (f) => statSync(path.join(root, f)).size;
  const knownBytes = known.reduce((s, f) => s + size(f), 0);
  const perByte = knownBytes > 0 ? known.reduce((s, f) => s + times[f], 0) / knownBytes : 1;
  const guess = (f) => times[f] ?? size(f) * perByte;
  const shares = Array.from({ length: Math.min(n, list.length) }, () => ({ files: [], ms: 0 }));
  for (const f of [...list].sort((a, b) => guess(b) - guess(a))) {
    const least = shares.reduce((a, b) => (b.ms < a.ms ? b : a));
    least.files.push(f);
    least.ms += guess(f);
  }
  return shares.map((s) => s.files.sort());
}

const reporterPath = path.join(root, 'scripts/test-reporter.mjs');
const setupPath = path.join(root, 'scripts/test-process-setup.mjs');

function readRecord(json) {
  try {
    return JSON.parse(json);
  } catch {
    return undefined;
  }
}

/**
 * One test process over `list` (node --test sorts its files and runs them in that order). Its
 * output is printed file by file, as each ends. Resolves with the records of the files it
 * finished, the files it started (scripts/test-process-setup.mjs), whether it was stopped for
 * taking too long, and how it ended.
 */
function runProcess(list, env) {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        setupPath,
        '--enable-source-maps',
        '--test',
        '--test-isolation=none',
        '--test-force-exit',
        `--test-timeout=${TEST_TIMEOUT_MS}`,
        `--test-reporter=${reporterPath}`,
        '--test-reporter-destination=stdout',
        ...list,
      ],
      // Its own process group, so that it goes with everything it started.
      { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] },
    );
    running.add(child);
    const records = [];
    const startedFiles = [];
    let stalled = false;
    let output = '';
    let partial = '';
    const flush = () => {
      if (output) process.stdout.write(output);
      output = '';
    };
    let timer;
    const watch = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        stalled = true;
        killGroup(child);
      }, FILE_TIMEOUT_MS);
    };
    watch();
    child.stdout.on('data', (d) => {
      const lines = (partial + d).split('\n');
      partial = lines.pop();
      for (const line of lines) {
        const record = line.startsWith(RECORD) ? readRecord(line.slice(RECORD.length)) : undefined;
        if (!record) {
          output += `${line}\n`;
          continue;
        }
        if (record.type === 'start') startedFiles.push(record.file);
        if (record.type === 'file') {
          records.push(record);
          flush();
          watch();
        }
      }
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    // Its output ends with it, unless something it started outside its group holds the pipes.
    child.on('exit', () => {
      setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, 5000).unref();
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(child);
      output += partial;
      flush();
      resolve({ records, started: startedFiles, stalled, code, signal });
    });
  });
}

/**
 * Runs `list` in one process, and again in a new process for the files left whenever one ends
 * before its files are done: the file it was on fails. A process that ends while loading its
 * files names none: its files are run one per process, to find the one.
 */
async function runShare(list, env) {
  const records = [];
  /** What went wrong beside the tests' own failures, each counted as one failure. */
  const problems = [];
  let left = [...list].sort();
  while (left.length > 0) {
    const r = await runProcess(left, env);
    records.push(...r.records);
    const done = new Set(r.records.map((x) => x.file));
    const notDone = left.filter((f) => !done.has(f));
    const how = r.stalled
      ? `took over ${FILE_TIMEOUT_MS / 1000} s: its process was killed`
      : `its process ended (${r.signal ?? `exit ${r.code}`}) before the file was done`;
    if (notDone.length === 0) {
      // Every file reported: a failing exit still says something went wrong (an error after the
      // last test, a diagnostic); it is a failure when no test failed to account for it.
      if ((r.code !== 0 || r.signal) && r.records.every((x) => x.failed === 0)) {
        const message = `their process ended (${r.signal ?? `exit ${r.code}`}) though no test failed`;
        problems.push({ file: left.join(', '), message });
      }
      break;
    }
    if (r.started.length === 0 && left.length > 1) {
      // Stopped before its first test: one file's own code ended it (or hung) as it loaded, or
      // the first file's first hook did; find which.
      for (const f of left) {
        const alone = await runShare([f], env);
        records.push(...alone.records);
        problems.push(...alone.problems);
      }
      break;
    }
    const lost = r.started.findLast((f) => !done.has(f)) ?? notDone[0];
    problems.push({ file: lost, message: how });
    // Its tests that ended before are lost with its record: the file counts as one failure.
    records.push({ file: lost, ms: r.stalled ? FILE_TIMEOUT_MS : 0, cpuMs: 0, passed: 0, failed: 0, skipped: 0 });
    left = notDone.filter((f) => f !== lost);
  }
  return { records, problems };
}

/**
 * A hook outside any describe block: in a process that runs many files, node:test makes it a hook
 * of the process's root, so a `beforeEach` would run before every test of every file there.
 * Such a file is not run: it fails, named.
 */
const HOOK_OUTSIDE_DESCRIBE = /^(?:before|after|beforeEach|afterEach)\(/m;
const hooksOutside = files.filter(
  (f) => existsSync(path.join(root, f)) && HOOK_OUTSIDE_DESCRIBE.test(readFileSync(path.join(root, f), 'utf8')),
);
for (const f of hooksOutside) {
  console.log(`✖ ${f} has a hook outside any describe block: it would run around every file of its process`);
}

let passed = 0;
let failed = hooksOutside.length;
let skipped = 0;
const timings = [];
const history = readHistory();
for (const engine of engines) {
  const t0 = Date.now();
  let list = files.filter((f) => !hooksOutside.includes(f));
  if (engine === 'postgres') {
    const all = list;
    list = await engineDependentFiles(root, all);
    const once = all.length - list.length;
    if (once > 0) console.log(`\n${once} test files do not depend on the engine (or say so): they ran on PGlite only`);
    if (list.length === 0) continue;
  }
  const shares = shareOut(list, history[engine] ?? {}, concurrency);
  console.log(`\n=== ${list.length} test files on ${engine}, in ${shares.length} processes ===`);
  const template = await makeTemplate(engine, list.length);
  const env = { ...process.env, ...template, TEST_DATABASE: engine, NODE_ENV: 'test', PAYREQ_TEST_CHECKOUT: root };
  // Set in a test process of `node --test`, it would make these processes report to it instead.
  delete env.NODE_TEST_CONTEXT;
  const results = await Promise.all(
    shares.map(async (share) => {
      const began = Date.now();
      return { ...(await runShare(share, env)), ms: Date.now() - began };
    }),
  );
  if (template.PAYREQ_TEST_POSTGRES_TEMPLATE) {
    await run([...templateCommand, 'drop', 'postgres', template.PAYREQ_TEST_POSTGRES_TEMPLATE], {
      cwd,
      stdio: 'inherit',
    });
  }
  const records = results.flatMap((r) => r.records);
  const problems = results.flatMap((r) => r.problems);
  const p = records.reduce((n, t) => n + t.passed, 0);
  const f = records.reduce((n, t) => n + t.failed, 0) + problems.length;
  const s = records.reduce((n, t) => n + t.skipped, 0);
  passed += p;
  failed += f;
  skipped += s;
  const ends = results.map((r) => Math.round(r.ms / 1000)).sort((a, b) => a - b);
  timings.push(`${engine} ${seconds(Date.now() - t0)}, its processes ${ends.join(', ')} s`);
  printSlowest(records);
  for (const problem of problems) console.log(`✖ ${problem.file} ${problem.message}`);
  const failedFiles = new Set([...records.filter((t) => t.failed > 0), ...problems].map((t) => t.file));
  if (failedFiles.size > 0) console.log(`\nfiles with failures on ${engine}:\n  ${[...failedFiles].join('\n  ')}`);
  console.log(`${engine}: ${p} passed, ${f} failed${s ? `, ${s} skipped` : ''}`);
  const known = history[engine] ?? {};
  const times = records.map((t) => [
    t.file,
    typeof known[t.file] === 'number' ? Math.round((known[t.file] + t.ms) / 2) : t.ms,
  ]);
  history[engine] = { ...known, ...Object.fromEntries(times) };
}
try {
  writeFileSync(historyFile, JSON.stringify(history));
} catch {}

/** The 10 slowest test files of an engine's run: wall time, and CPU time in their test process. */
function printSlowest(records) {
  if (records.length < 2) return;
  const cpu = records.reduce((n, t) => n + t.cpuMs, 0);
  console.log(
    `\nslowest files (wall s / CPU s in their process; all ${records.length} files: ${(cpu / 1000).toFixed(0)} CPU s):`,
  );
  for (const t of [...records].sort((a, b) => b.ms - a.ms).slice(0, 10)) {
    const wall = (t.ms / 1000).toFixed(1).padStart(6);
    const own = (t.cpuMs / 1000).toFixed(1).padStart(6);
    console.log(`${wall} ${own}  ${t.file}`);
  }
}
rmSync(scratch, { recursive: true, force: true });

function seconds(ms) {
  return `${Math.round(ms / 1000)} s`;
}

console.log(`\ntook ${seconds(Date.now() - started)} (${timings.join('; ')})`);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 ? 1 : 0);
