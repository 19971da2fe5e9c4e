// One test process of scripts/run-tests.mjs: it runs test files one after another, as the
// runner hands them out over IPC, in this one process. A process per file paid for a Node
// start, the whole module graph and a PGlite start every time (about 4 s of CPU); here the
// modules are loaded once and the test databases are reused (test/helpers/pglite-pool.ts).
//
// node:test runs every file's top-level tests in this process's one root, in order. The
// reporter scripts/test-file-tracker.mjs tells which file's top-level tests have all ended, so
// the next file is asked for only then: each file's time is its own, and a slow file never
// holds back a queue of others in this process while another worker is idle.
//
// Files share the process: a test must leave no global state behind (environment variables,
// global dispatchers, timers); each file's before/after hooks belong in its describe blocks.

import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { fileDone, trackFile } from './test-file-tracker.mjs';

/** Functions to run once the last file is done (the PGlite pool closes its idle instances). */
const cleanups = [];
globalThis[Symbol.for('payreq.test-worker.cleanups')] = cleanups;

const nextMessage = () => new Promise((resolve) => process.once('message', resolve));

for (;;) {
  process.send({ type: 'ready' });
  const message = await nextMessage();
  if (message.type !== 'run') break;
  const file = path.resolve(message.file);
  const started = performance.now();
  const cpu = process.cpuUsage();
  const tracked = trackFile(file);
  let loadError;
  try {
    await import(pathToFileURL(file).href);
  } catch (err) {
    // A file that does not load fails the run, as node --test would report it.
    loadError = err instanceof Error ? (err.stack ?? err.message) : String(err);
    console.error(`\n✖ ${message.file} did not load:\n${loadError}\n`);
    process.exitCode = 1;
  }
  const counts = await fileDone(tracked);
  const used = process.cpuUsage(cpu);
  process.send({
    type: 'done',
    file: message.file,
    ms: Math.round(performance.now() - started),
    cpuMs: Math.round((used.user + used.system) / 1000),
    passed: counts.passed,
    failed: counts.failed + (loadError ? 1 : 0),
    skipped: counts.skipped,
  });
}

for (const cleanup of cleanups) await cleanup();
// Without the channel, the process ends when its tests and their handles do; node:test then
// writes its summary.
process.disconnect();
