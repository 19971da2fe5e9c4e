#!/usr/bin/env node
// Runs the suite with Node's own test runner on embedded PGlite, then again on PostgreSQL when
// TEST_POSTGRES_URL is set, and ends with one line `N passed, N failed[, N skipped]` summed over
// both runs (CI reads it); the exit code is non-zero when anything failed.
// Usage: npm test [-- test/api/create.test.ts test/cli ...]
//
// Only what `node --test` cannot do on two cores (docs/development.md, "Testing", has the figures):
// - Two engines: the PostgreSQL pass runs only the files whose outcome can depend on the engine
//   (scripts/test-engines.mjs), with TEST_DATABASE naming it.
// - One migrated database per engine, made before the test processes start (each test database
//   is a copy: test/helpers/database-template.ts); PGlite's is kept between runs under a hash of
//   the migrations. `--test-global-setup` would make it once per process.
// - A few long-lived processes, each `node --test --test-isolation=none` over its share: a
//   process per file (node's default) paid a Node start, the module graph and a PGlite start per
//   file, twice the CPU. The shares are cut by each file's time on past runs, so the processes
//   end together; `--test-shard` deals files by position, whatever their length.
// - A process whose files stop ending (a test that never gives the event loop back, past
//   TEST_FILE_TIMEOUT_S) is killed with what it started, as is one that ends before its files
//   are done: the file it was on fails and a new process takes the files left. Node's own
//   `--test-timeout` (TEST_TIMEOUT_S) bounds each test that does give it back.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { engineDependentFiles } from './test-engines.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const started = Date.now();
const given = process.argv.slice(2).map((f) => path.relative(root, path.resolve(f)));
const isFolder = (f) => fs.existsSync(f) && fs.statSync(f).isDirectory();
process.chdir(root);
const files = [
  ...new Set(
    (given.length > 0 ? given : ['test']).flatMap((f) => (isFolder(f) ? fs.globSync(`${f}/**/*.test.ts`) : [f])),
  ),
].sort();
const missing = files.filter((f) => !fs.existsSync(f));
if (missing.length > 0) {
  console.error(`No such test file: ${missing.join(', ')}`);
  process.exit(2);
}
if (!process.env.TEST_POSTGRES_URL) console.log('TEST_POSTGRES_URL is not set: running on PGlite only.');
// One more process than cores: a file often waits on what it started (a CLI child, a browser,
// the database server) and the spare process computes meanwhile.
const concurrency = Number(process.env.TEST_CONCURRENCY) || availableParallelism() + 1;
const TEST_TIMEOUT_MS = (Number(process.env.TEST_TIMEOUT_S) || 300) * 1000;
const FILE_TIMEOUT_MS = (Number(process.env.TEST_FILE_TIMEOUT_S) || 600) * 1000;
const scratch = fs.mkdtempSync(path.join(tmpdir(), 'payreq-test-'));
const kept = path.join(tmpdir(), 'payreq-test-templates');
fs.mkdirSync(kept, { recursive: true });

/** The test processes running, each the leader of its own group: killed with what it started. */
const running = new Set();
const killGroup = (child) => {
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {}
};
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    for (const child of running) killGroup(child);
    fs.rmSync(scratch, { recursive: true, force: true });
    console.log(`\nstopped by ${signal}`);
    process.exit(1);
  });
}

const readJson = (file, otherwise) => {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return otherwise;
  }
};

/** Runs test/helpers/database-template-command.ts with `args`; resolves with its last line when it succeeds. */
async function templateCommand(...args) {
  const command = ['test/helpers/database-template-command.ts', ...args];
  const child = spawn(process.execPath, command, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const code = await new Promise((resolve) => child.on('close', resolve));
  return code === 0 ? out.trim().split('\n').pop() : undefined;
}

/** The engine's migrated template, as the environment the test processes read; {} when there is none. */
async function makeTemplate(engine) {
  const hash = createHash('sha256').update(fs.readFileSync('node_modules/@electric-sql/pglite/package.json'));
  for (const f of fs.globSync('src/db/migrations/*.sql').sort()) hash.update(f).update(fs.readFileSync(f));
  const archive = path.join(kept, `pglite-${hash.digest('hex').slice(0, 16)}.tar`);
  if (engine === 'pglite' && fs.existsSync(archive)) {
    fs.utimesSync(archive, new Date(), new Date());
    return { PAYREQ_TEST_PGLITE_TEMPLATE: archive };
  }
  for (const name of fs.readdirSync(kept).filter((n) => n.endsWith('.tar'))) {
    if (fs.statSync(path.join(kept, name)).mtimeMs < Date.now() - 24 * 3600_000) fs.rmSync(path.join(kept, name));
  }
  const made = await templateCommand('make', engine, scratch);
  if (!made) {
    console.log(`no migrated template for ${engine}: each test migrates its own database`);
    return {};
  }
  if (engine === 'postgres') return { PAYREQ_TEST_POSTGRES_TEMPLATE: made };
  fs.renameSync(made, archive); // whole or not at all, for a run beside this one
  return { PAYREQ_TEST_PGLITE_TEMPLATE: archive };
}

/** `list` shared out by past times (else size), longest first, each to the share with least so far. */
function shareOut(list, times, n) {
  const guess = (f) => times[f] ?? fs.statSync(f).size / 100;
  const shares = Array.from({ length: Math.min(n, list.length) }, () => ({ files: [], ms: 0 }));
  for (const f of [...list].sort((a, b) => guess(b) - guess(a))) {
    const least = shares.reduce((a, b) => (b.ms < a.ms ? b : a));
    least.files.push(f);
    least.ms += guess(f);
  }
  return shares.map((s) => s.files);
}

/** One `node --test` process over `list`, its counts added to `tally`; resolves with the files left to run. */
async function runProcess(list, env, id, tally) {
  const counts = path.join(scratch, `counts-${id}.json`);
  const current = `${counts}.current`;
  const began = Date.now();
  const args = ['--import', './scripts/test-process-setup.mjs', '--test', '--test-isolation=none'];
  args.push('--test-force-exit', `--test-timeout=${TEST_TIMEOUT_MS}`, '--test-reporter=./scripts/test-reporter.mjs');
  const child = spawn(process.execPath, [...args, '--test-reporter-destination=stdout', ...list], {
    env: { ...env, PAYREQ_TEST_COUNTS: counts, PAYREQ_TEST_CURRENT: current },
    detached: true, // its own process group, so that it goes with everything it started
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'], // the channel tells it when the runner is gone
  });
  running.add(child);
  let stalled = false;
  // The reporter rewrites the counts as each file ends: unchanged for too long, the process is stuck.
  const watch = setInterval(() => {
    const last = fs.existsSync(counts) ? fs.statSync(counts).mtimeMs : began;
    if (Date.now() - Math.max(last, began) < FILE_TIMEOUT_MS) return;
    stalled = true;
    killGroup(child);
  }, 1000);
  const [code, signal] = await new Promise((resolve) => child.on('exit', (...end) => resolve(end)));
  clearInterval(watch);
  running.delete(child);
  const r = readJson(counts, { passed: 0, failed: 0, skipped: 0, ms: {} });
  for (const k of ['passed', 'failed', 'skipped']) tally[k] += r[k];
  Object.assign(tally.ms, r.ms);
  const notDone = list.filter((f) => !(f in r.ms));
  // Every file done, a failing exit still says something went wrong (an error after the last test).
  if (notDone.length === 0 && ((code === 0 && !signal) || r.failed > 0)) return [];
  tally.failed++;
  const on = fs.existsSync(current) ? fs.readFileSync(current, 'utf8') : undefined;
  const how = stalled
    ? `took over ${FILE_TIMEOUT_MS / 1000} s: its process was killed`
    : `its process ended (${signal ?? `exit ${code}`})`;
  // The file it was on fails and the others go on; without one (it ended as its files loaded, or
  // after the last) the files not done are not run.
  if (notDone.includes(on)) console.log(`✖ ${on} ${how}`);
  else console.log(`✖ ${list.join(', ')}: ${how}${notDone.length ? `; not run: ${notDone.join(', ')}` : ''}`);
  return notDone.includes(on) ? notDone.filter((f) => f !== on) : [];
}

let passed = 0;
let failed = 0;
let skipped = 0;
const timings = [];
const history = readJson(path.join(kept, 'file-times.json'), {});
for (const engine of ['pglite', ...(process.env.TEST_POSTGRES_URL ? ['postgres'] : [])]) {
  const t0 = Date.now();
  const list = engine === 'pglite' ? files : await engineDependentFiles(root, files);
  if (list.length < files.length) console.log(`\n${files.length - list.length} files do not depend on the engine`);
  if (list.length === 0) continue;
  const shares = shareOut(list, history[engine] ?? {}, concurrency);
  console.log(`\n=== ${list.length} test files on ${engine}, in ${shares.length} processes ===`);
  const template = await makeTemplate(engine);
  const env = { ...process.env, ...template, TEST_DATABASE: engine, NODE_ENV: 'test' };
  delete env.NODE_TEST_CONTEXT; // set by an outer `node --test`, it would report to that one instead
  const tally = { passed: 0, failed: 0, skipped: 0, ms: {} };
  const ends = await Promise.all(
    shares.map(async (left, i) => {
      for (let n = 0; left.length > 0; n++) left = await runProcess(left, env, `${engine}-${i}-${n}`, tally);
      return Math.round((Date.now() - t0) / 1000);
    }),
  );
  if (template.PAYREQ_TEST_POSTGRES_TEMPLATE)
    await templateCommand('drop', 'postgres', template.PAYREQ_TEST_POSTGRES_TEMPLATE);
  console.log('\nslowest files (s):');
  const slowest = Object.entries(tally.ms).sort((a, b) => b[1] - a[1]);
  for (const [f, ms] of slowest.slice(0, 10)) console.log(`${(ms / 1000).toFixed(1).padStart(6)}  ${f}`);
  console.log(`${engine}: ${tally.passed} passed, ${tally.failed} failed, ${tally.skipped} skipped`);
  [passed, failed, skipped] = [passed + tally.passed, failed + tally.failed, skipped + tally.skipped];
  timings.push(
    `${engine} ${Math.round((Date.now() - t0) / 1000)} s, its processes ${ends.sort((a, b) => a - b).join(', ')} s`,
  );
  // Each file's time: the mean of its last two, so that one busy run does not reshuffle the shares.
  const known = history[engine] ?? {};
  for (const [f, ms] of slowest) known[f] = typeof known[f] === 'number' ? Math.round((known[f] + ms) / 2) : ms;
  history[engine] = known;
}
fs.writeFileSync(path.join(kept, 'file-times.json'), JSON.stringify(history));
fs.rmSync(scratch, { recursive: true, force: true });
console.log(`\ntook ${Math.round((Date.now() - started) / 1000)} s (${timings.join('; ')})`);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 ? 1 : 0);
