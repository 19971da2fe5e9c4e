// A node:test reporter that prints nothing: in a test worker (scripts/test-worker.mjs) it
// follows the events of the process's root and tells the worker when every top-level test of a
// file has ended. Reporters run in the process they report on, so the worker and this module
// share one state (this module is loaded once by both).
//
// A file's top-level tests are enqueued while the file is imported, and events arrive in the
// order they happen: once the import is over and the events emitted during it have been read,
// the file is done when as many of its top-level tests have ended as were enqueued.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** By file (see keyOf). */
const files = new Map();
let wake = () => {};

/**
 * A file as the same key whether named in the compiled tree the worker runs in (its working
 * directory) or, through the source map, in the checkout (PAYREQ_TEST_CHECKOUT).
 */
function keyOf(file) {
  const abs = path.resolve(file);
  for (const base of [process.cwd(), process.env.PAYREQ_TEST_CHECKOUT]) {
    if (base && abs.startsWith(base + path.sep)) return abs.slice(base.length).replace(/\.(ts|js|mjs)$/, '');
  }
  return abs.replace(/\.(ts|js|mjs)$/, '');
}

function entry(file) {
  const key = keyOf(file.startsWith('file:') ? fileURLToPath(file) : file);
  let e = files.get(key);
  if (!e) {
    e = { enqueued: 0, ended: 0, passed: 0, failed: 0, skipped: 0 };
    files.set(key, e);
  }
  return e;
}

// biome-ignore lint/correctness/useYield: a reporter that only listens prints nothing.
export default async function* tracker(source) {
  for await (const event of source) {
    const data = event.data;
    if (!data?.file) continue;
    // Counted as node:test's own summary counts: every test but suites, at any depth; a
    // cancelled test is a failure, a todo one is counted with the skipped.
    if ((event.type === 'test:pass' || event.type === 'test:fail') && data.details?.type !== 'suite') {
      const e = entry(data.file);
      if (data.skip !== undefined || data.todo !== undefined) e.skipped++;
      else if (event.type === 'test:pass') e.passed++;
      else e.failed++;
    }
    if (data.nesting !== 0) continue;
    if (event.type === 'test:enqueue') entry(data.file).enqueued++;
    else if (event.type === 'test:pass' || event.type === 'test:fail') {
      const e = entry(data.file);
      e.ended++;
      if (event.type === 'test:fail' && data.details?.type === 'suite' && e.failed === 0) e.failed++;
      wake();
    }
  }
}

/** Starts following `file` (an absolute path); pass the result to fileDone(). */
export function trackFile(file) {
  return entry(file);
}

/** Resolves, with the file's counts of tests, once its top-level tests have all ended. */
export async function fileDone(e) {
  // Lets the reporter read what the import emitted (the enqueue events) before counting.
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
  while (e.ended < e.enqueued) await new Promise((resolve) => (wake = resolve));
  return { passed: e.passed, failed: e.failed, skipped: e.skipped };
}
