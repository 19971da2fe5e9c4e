#!/usr/bin/env node
// Runs the whole suite on embedded PGlite, then again on PostgreSQL when TEST_POSTGRES_URL is
// set, and ends with one line `N passed, N failed` summed over both runs (CI reads it); the exit
// code is non-zero when anything failed.
// Usage: npm test [-- test/api/create.test.ts ...]
//
// Where the time went, and what this does about it (README "Testing"):
// - Each test file is its own process. Loading the sources through tsx cost each one about 4 s
//   more than compiled JavaScript, so the sources and tests are transpiled once per run with
//   esbuild (no type check: `npm run typecheck` does that) into a scratch tree that mirrors the
//   checkout; TEST_FROM_SOURCE=1 runs them through tsx as before.
// - A new PGlite cluster costs an initdb inside WASM (about 8 s). The migrated database is made
//   once (PGlite: kept until the migrations change; PostgreSQL: per run) and every test file
//   starts from a copy (test/helpers/database-template.ts).
// - Files run in parallel, as many as the machine has cores (TEST_CONCURRENCY overrides).
// - After each engine it prints the 10 slowest files (wall time from the process's start, and its
//   own CPU seconds: on a shared machine the CPU figure says more), to show where to look next.
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
const concurrency = Number(process.env.TEST_CONCURRENCY) || availableParallelism();
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
      target: 'node20',
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

let passed = 0;
let failed = 0;
let skipped = 0;
const timings = [];
for (const engine of engines) {
  const t0 = Date.now();
  console.log(`\n=== ${files.length} test files on ${engine}, ${concurrency} at a time ===`);
  const template = await makeTemplate(engine);
  const tap = path.join(scratch, `${engine}.tap`);
  const fileTimes = path.join(scratch, `${engine}.times`);
  const r = await run(
    [
      ...loader,
      '--import',
      pathToFileURL(path.join(root, 'scripts/test-file-timer.mjs')).href,
      '--enable-source-maps',
      '--test',
      `--test-concurrency=${concurrency}`,
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=tap',
      `--test-reporter-destination=${tap}`,
      ...files.map(testPath),
    ],
    {
      cwd,
      stdio: 'inherit',
      env: {
        ...process.env,
        ...template,
        TEST_DATABASE: engine,
        NODE_ENV: 'test',
        PAYREQ_TEST_TIMINGS: fileTimes,
      },
    },
  );
  if (template.PAYREQ_TEST_POSTGRES_TEMPLATE) {
    await run([...templateCommand, 'drop', 'postgres', template.PAYREQ_TEST_POSTGRES_TEMPLATE], {
      cwd,
      stdio: 'inherit',
    });
  }
  let text = '';
  try {
    text = readFileSync(tap, 'utf8');
  } catch {}
  const count = (label) => sum(text, label);
  const p = count('pass');
  const f = count('fail') + count('cancelled');
  const s = count('skipped') + count('todo');
  // A crashed runner that reported nothing still fails the run.
  const crashed = r.code !== 0 && f === 0 ? 1 : 0;
  passed += p;
  failed += f + crashed;
  skipped += s;
  timings.push(`${engine} ${seconds(Date.now() - t0)}`);
  printSlowest(fileTimes);
  console.log(`${engine}: ${p} passed, ${f + crashed} failed${s ? `, ${s} skipped` : ''}`);
}

/** The 10 slowest test files of an engine's run, from the lines scripts/test-file-timer.mjs wrote. */
function printSlowest(fileTimes) {
  let lines = [];
  try {
    lines = readFileSync(fileTimes, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  } catch {
    return;
  }
  if (lines.length < 2) return;
  const cpu = lines.reduce((n, l) => n + l.cpuMs, 0);
  console.log(`\nslowest files (wall s / own CPU s; all ${lines.length} files: ${(cpu / 1000).toFixed(0)} CPU s):`);
  for (const l of lines.sort((a, b) => b.ms - a.ms).slice(0, 10)) {
    const wall = (l.ms / 1000).toFixed(1).padStart(6);
    const own = (l.cpuMs / 1000).toFixed(1).padStart(6);
    console.log(`${wall} ${own}  ${l.file.replace(/\.js$/, '.ts')}`);
  }
}
rmSync(scratch, { recursive: true, force: true });

function sum(text, label) {
  let n = 0;
  for (const m of text.matchAll(new RegExp(`^# ${label} (\\d+)$`, 'gm'))) n = Number(m[1]);
  return n;
}

function seconds(ms) {
  return `${Math.round(ms / 1000)} s`;
}

console.log(`\ntook ${seconds(Date.now() - started)} (${timings.join(', ')}, concurrency ${concurrency})`);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 ? 1 : 0);
