#!/usr/bin/env node
// Runs the whole suite on embedded PGlite, then again on PostgreSQL when TEST_POSTGRES_URL is
// set, and ends with one line `N passed, N failed` summed over both runs (CI reads it); the exit
// code is non-zero when anything failed.
// Usage: npm test [-- test/api/create.test.ts ...]
//
// Where the time went, and what this does about it (README "Testing"):
// - Loading the sources through tsx cost each process about 4 s more than compiled JavaScript,
//   so the sources and tests are transpiled once per run with esbuild (no type check: `npm run
//   typecheck` does that) into a scratch tree that mirrors the checkout; TEST_FROM_SOURCE=1
//   runs them through tsx as before.
// - A process per test file paid for a Node start, the module graph and a PGlite start each
//   time. Test files run instead in a few long-lived workers (scripts/test-worker.mjs), one more
//   than the machine has cores (TEST_CONCURRENCY overrides), each taking the next file when done
//   with one, longest files first. Within a worker, a PGlite database a test is done with is
//   emptied and reused (test/helpers/pglite-pool.ts).
// - A new PGlite cluster costs an initdb inside WASM (about 8 s). The migrated database is made
//   once (PGlite: kept until the migrations change; PostgreSQL: per run) and every new test
//   database starts from a copy (test/helpers/database-template.ts).
// - The PostgreSQL pass runs only the files whose outcome can depend on the engine.
// - After each engine it prints the 10 slowest files (wall time and CPU seconds in their
//   worker; CLI children and browsers not counted), to show where to look next.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const started = Date.now();

function findFiles(dir, suffix) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...findFiles(p, suffix));
    else if (name.endsWith(suffix)) out.push(p);
  }
  return out.sort();
}

const given = process.argv.slice(2);
const files = (given.length > 0 ? given : findFiles(path.join(root, 'test'), '.test.ts')).map((f) =>
  path.relative(root, path.resolve(f)),
);
const engines = ['pglite', ...(process.env.TEST_POSTGRES_URL ? ['postgres'] : [])];
if (!process.env.TEST_POSTGRES_URL) console.log('TEST_POSTGRES_URL is not set: running on PGlite only.');
// One more worker than cores: a file often waits on what it started (a CLI child, a browser,
// the database server) and the spare worker's file computes meanwhile. Four on two cores put the
// CLI process tests past their time limits.
const concurrency = Number(process.env.TEST_CONCURRENCY) || availableParallelism() + 1;
const scratch = mkdtempSync(path.join(tmpdir(), 'payreq-test-'));

/** Runs a child to its end; SIGINT/SIGTERM reach it through the process group, and we wait for it. */
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

/**
 * The checkout, compiled: src/, test/ and clients/ transpiled file by file (same relative paths, `.js`),
 * their other files (the SQL migrations) copied, and every other top-level entry (bin/,
 * node_modules/, docs/, package.json...) linked, so paths a test builds from import.meta.url
 * land where they would in the checkout. Returns undefined when esbuild refuses a file: the
 * run then goes through tsx, which reports that file's error as its own failure.
 */
/** What the run compiles: the service, its tests, and the typed client the tests import. */
const COMPILED = ['src', 'test', 'clients'];

async function compiledTree() {
  if (process.env.TEST_FROM_SOURCE === '1') return undefined;
  const tree = path.join(scratch, 'tree');
  const t0 = Date.now();
  try {
    const { build } = await import('esbuild');
    const sources = COMPILED.flatMap((d) => findFiles(path.join(root, d), '.ts')).filter((f) => !f.endsWith('.d.ts'));
    await build({
      entryPoints: sources,
      outbase: root,
      outdir: tree,
      format: 'esm',
      platform: 'node',
      target: 'node24',
      sourcemap: 'inline',
      logLevel: 'silent',
    });
    for (const d of COMPILED) {
      cpSync(path.join(root, d), path.join(tree, d), {
        recursive: true,
        filter: (p) => statSync(p).isDirectory() || !p.endsWith('.ts'),
      });
    }
    for (const name of readdirSync(root)) {
      if (![...COMPILED, '.git'].includes(name)) symlinkSync(path.join(root, name), path.join(tree, name));
    }
    console.log(`compiled ${sources.length} files for the run in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    return tree;
  } catch (err) {
    const detail = err.errors?.map((e) => `${e.location?.file}:${e.location?.line}: ${e.text}`).join('\n') ?? err;
    console.log(`could not compile the tests (${detail}); running them through tsx instead`);
    return undefined;
  }
}

const tree = await compiledTree();
const cwd = tree ?? root;
const loader = tree ? [] : ['--import', 'tsx'];
const testPath = (f) => (tree ? f.replace(/\.ts$/, '.js') : f);
const templateCommand = [...loader, testPath('test/helpers/database-template-command.ts')];

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
  for (const f of findFiles(path.join(root, 'src/db/migrations'), '.sql')) {
    hash.update(path.basename(f)).update(readFileSync(f));
  }
  const dayAgo = Date.now() - 24 * 3600 * 1000;
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).mtimeMs < dayAgo) rmSync(p, { force: true });
  }
  return path.join(dir, `pglite-${hash.digest('hex').slice(0, 16)}.tar`);
}

/** The run's migrated database for `engine`, as the environment the test processes read; {} when there is none. */
async function makeTemplate(engine) {
  const t0 = Date.now();
  let archive;
  if (engine === 'pglite') {
    archive = pgliteArchivePath();
    if (existsSync(archive)) {
      utimesSync(archive, new Date(), new Date());
      return { PAYREQ_TEST_PGLITE_TEMPLATE: archive };
    }
  } else if (files.length < 3) {
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
 * Whether a test file's outcome can depend on the engine: it reaches test/helpers/database.ts
 * (the engine's test database) through its relative imports, or reads the engine itself. The
 * others (pure rules, PGlite-only checks) run on the PGlite pass only, as do files that say so
 * on a line `// test-engines: pglite` with their reason (the browser tests).
 */
function dependsOnEngine(file) {
  if (/^\/\/ test-engines: pglite\b/m.test(readFileSync(path.join(root, file), 'utf8'))) return false;
  const seen = new Set();
  const stack = [path.join(root, file)];
  while (stack.length > 0) {
    const f = stack.pop();
    if (seen.has(f) || !existsSync(f)) continue;
    seen.add(f);
    if (f === path.join(root, 'test/helpers/database.ts')) return true;
    const text = readFileSync(f, 'utf8');
    if (/\bTEST_DATABASE\b/.test(text)) return true;
    for (const m of text.matchAll(/(?:from|import\()\s*'(\.{1,2}\/[^']+)'/g)) {
      stack.push(path.resolve(path.dirname(f), m[1]).replace(/\.js$/, '.ts'));
    }
  }
  return false;
}

/**
 * Each file's time on the last run of this checkout's suite, kept beside the PGlite archive:
 * the longest files are handed out first, so the run does not end on one long file while the
 * other workers are idle. Files with no time yet go first, largest first.
 */
const historyFile = path.join(tmpdir(), 'payreq-test-templates', 'file-times.json');

function readHistory() {
  try {
    return JSON.parse(readFileSync(historyFile, 'utf8'));
  } catch {
    return {};
  }
}

function longestFirst(list, history) {
  const known = list.filter((f) => typeof history[f] === 'number').sort((a, b) => history[b] - history[a]);
  const unknown = list
    .filter((f) => typeof history[f] !== 'number')
    .sort((a, b) => statSync(path.join(root, b)).size - statSync(path.join(root, a)).size);
  return [...unknown, ...known];
}

/** Beyond this, a test file is taken for hung: its worker is stopped and the file fails. */
const FILE_TIMEOUT_MS = (Number(process.env.TEST_FILE_TIMEOUT_S) || 600) * 1000;
const workerScript = path.join(root, 'scripts/test-worker.mjs');
const trackerUrl = pathToFileURL(path.join(root, 'scripts/test-file-tracker.mjs')).href;

/**
 * Runs `list` on `concurrency` workers (scripts/test-worker.mjs), each taking the next file
 * when it is done with one. A worker's output is printed file by file. A worker that dies or
 * hangs fails its file and is replaced. Resolves with each file's times and counts of tests (as
 * its worker counted them, so a worker that dies later loses none of them) and the crashes.
 */
function runFiles(list, env) {
  const queue = [...list];
  const times = [];
  const crashes = [];
  return new Promise((resolveAll) => {
    let running = 0;
    const startWorker = () => {
      const child = spawn(
        process.execPath,
        [
          ...loader,
          '--enable-source-maps',
          '--test-reporter=spec',
          '--test-reporter-destination=stdout',
          `--test-reporter=${trackerUrl}`,
          '--test-reporter-destination=stdout',
          workerScript,
        ],
        { cwd, env, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] },
      );
      running++;
      let output = '';
      let current;
      let timer;
      let stopped = false;
      let hung = false;
      const flush = () => {
        if (output) process.stdout.write(output);
        output = '';
      };
      child.stdout.on('data', (d) => {
        output += d;
      });
      child.on('message', (m) => {
        if (m.type === 'done') {
          clearTimeout(timer);
          times.push({
            file: m.file,
            ms: m.ms,
            cpuMs: m.cpuMs,
            passed: m.passed,
            failed: m.failed,
            skipped: m.skipped,
          });
          current = undefined;
          flush();
        } else if (m.type === 'ready') {
          current = queue.shift();
          if (current === undefined) {
            stopped = true;
            child.send({ type: 'stop' });
            return;
          }
          timer = setTimeout(() => {
            crashes.push(`${current} took over ${FILE_TIMEOUT_MS / 1000} s: its worker was stopped`);
            times.push({ file: current, ms: FILE_TIMEOUT_MS, cpuMs: 0, passed: 0, failed: 1, skipped: 0 });
            // Counted once: the worker's end that follows is this stop, not another failure.
            hung = true;
            child.kill('SIGKILL');
          }, FILE_TIMEOUT_MS);
          child.send({ type: 'run', file: testPath(current) });
        }
      });
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        running--;
        flush();
        if (hung) {
          if (queue.length > 0) startWorker();
        } else if (!stopped || signal) {
          crashes.push(
            current
              ? `${current}: its worker ended (${signal ?? `exit ${code}`}) before the file was done`
              : `a worker ended (${signal ?? `exit ${code}`}) between files`,
          );
          if (current) times.push({ file: current, ms: 0, cpuMs: 0, passed: 0, failed: 1, skipped: 0 });
          if (queue.length > 0) startWorker();
        }
        if (running === 0) resolveAll({ times, crashes });
      });
    };
    for (let i = 0; i < Math.min(concurrency, list.length); i++) startWorker();
    if (list.length === 0) resolveAll({ times, crashes });
  });
}

let passed = 0;
let failed = 0;
let skipped = 0;
const timings = [];
const history = readHistory();
for (const engine of engines) {
  const t0 = Date.now();
  let list = files;
  if (engine === 'postgres') {
    list = files.filter(dependsOnEngine);
    const once = files.length - list.length;
    if (once > 0) console.log(`\n${once} test files do not depend on the engine (or say so): they ran on PGlite only`);
  }
  console.log(`\n=== ${list.length} test files on ${engine}, ${concurrency} at a time ===`);
  const template = await makeTemplate(engine);
  const r = await runFiles(longestFirst(list, history[engine] ?? {}), {
    ...process.env,
    ...template,
    TEST_DATABASE: engine,
    NODE_ENV: 'test',
    PAYREQ_TEST_CHECKOUT: root,
  });
  if (template.PAYREQ_TEST_POSTGRES_TEMPLATE) {
    await run([...templateCommand, 'drop', 'postgres', template.PAYREQ_TEST_POSTGRES_TEMPLATE], {
      cwd,
      stdio: 'inherit',
    });
  }
  // A file whose worker died or hung counts one failure (its worker reported nothing for it).
  const p = r.times.reduce((n, t) => n + t.passed, 0);
  const f = r.times.reduce((n, t) => n + t.failed, 0);
  const s = r.times.reduce((n, t) => n + t.skipped, 0);
  for (const c of r.crashes) console.log(`✖ ${c}`);
  passed += p;
  failed += f;
  skipped += s;
  timings.push(`${engine} ${seconds(Date.now() - t0)}`);
  printSlowest(r.times);
  const failedFiles = r.times.filter((t) => t.failed > 0).map((t) => t.file.replace(/\.js$/, '.ts'));
  if (failedFiles.length > 0) console.log(`\nfiles with failures on ${engine}:\n  ${failedFiles.join('\n  ')}`);
  console.log(`${engine}: ${p} passed, ${f} failed${s ? `, ${s} skipped` : ''}`);
  if (given.length === 0) {
    history[engine] = Object.fromEntries(r.times.map((t) => [t.file.replace(/\.js$/, '.ts'), t.ms]));
  }
}
if (given.length === 0) {
  try {
    writeFileSync(historyFile, JSON.stringify(history));
  } catch {}
}

/** The 10 slowest test files of an engine's run: wall time in its worker, and its CPU there. */
function printSlowest(times) {
  if (times.length < 2) return;
  const cpu = times.reduce((n, t) => n + t.cpuMs, 0);
  console.log(
    `\nslowest files (wall s / CPU s in the worker; all ${times.length} files: ${(cpu / 1000).toFixed(0)} CPU s):`,
  );
  for (const t of [...times].sort((a, b) => b.ms - a.ms).slice(0, 10)) {
    const wall = (t.ms / 1000).toFixed(1).padStart(6);
    const own = (t.cpuMs / 1000).toFixed(1).padStart(6);
    console.log(`${wall} ${own}  ${t.file.replace(/\.js$/, '.ts')}`);
  }
}
rmSync(scratch, { recursive: true, force: true });

function seconds(ms) {
  return `${Math.round(ms / 1000)} s`;
}

console.log(`\ntook ${seconds(Date.now() - started)} (${timings.join(', ')}, concurrency ${concurrency})`);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 ? 1 : 0);
