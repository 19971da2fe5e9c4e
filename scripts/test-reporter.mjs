// The node:test reporter of each test process scripts/run-tests.mjs starts (`node --test
// --test-isolation=none`, many files in one process, one top-level test at a time). For each
// file, once its last top-level test has ended, it prints one line, or with failures every
// failing test with its error in full (a failing `before` hook included); then a record line for
// the runner: the file's counts, wall time and CPU time in this process.
//
// node:test names the file a test was declared in (`data.file`): a top-level test declared by a
// helper module is counted with the test file before it, so a test file declares its top-level
// tests itself. A file that fails to load gets a placeholder test named after it, which fails.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';

/** Starts a line the runner reads and does not print (ASCII record separator). */
export const RECORD = '\x1e';

/** node:test's own closing counts, printed as diagnostics of the root: the runner prints its own. */
const SUMMARY = /^(tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) [\d.]+$/;

/** A test file's path as the checkout names it. */
export function sourcePath(file) {
  const abs = path.resolve(file.startsWith('file:') ? fileURLToPath(file) : file);
  for (const base of [process.cwd(), process.env.PAYREQ_TEST_CHECKOUT]) {
    if (base && abs.startsWith(base + path.sep)) return abs.slice(base.length + 1).replace(/\.js$/, '.ts');
  }
  return abs;
}

/** The test files this process runs: node --test leaves them as its arguments. */
const testFiles = new Set(process.argv.slice(1).map(sourcePath));
const isTestFile = (file) => testFiles.has(sourcePath(file));
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const indent = (text, by) => text.replace(/^/gm, by);

/** What failed, as the developer needs it: the assertion's message and diff, the stack, the cause. */
function describeError(error) {
  // node:test wraps what a test threw; a timeout or a cancel is a string in `cause`.
  const cause = error?.cause ?? error;
  const text = typeof cause === 'string' ? cause : inspect(cause, { depth: 6 });
  return text.trim();
}

export default async function* reporter(source) {
  /** Per test file: its top-level tests enqueued and ended, counts, time, and the lines to print. */
  const files = new Map();
  /** Names and parents of tests, to print a failing test with its suites. */
  const tests = new Map();
  let lastTopFile;
  let current;

  /** The test file of each top-level test, by testId, as it was enqueued (while its file loaded). */
  const topFiles = new Map();
  const fileOf = (data) => {
    const known = topFiles.get(data.testId);
    if (known) return known;
    if (data.file && isTestFile(data.file)) return sourcePath(data.file);
    // The placeholder test of a file without tests (or one that did not load) is named after it.
    if (!data.file && isTestFile(data.name ?? '')) return sourcePath(data.name);
    return lastTopFile ?? '(unknown file)';
  };
  const entry = (file) => {
    let e = files.get(file);
    if (!e) {
      e = { enqueued: 0, ended: 0, passed: 0, failed: 0, skipped: 0, suiteFailed: false, ms: 0, lines: [] };
      files.set(file, e);
    }
    return e;
  };
  const fullName = (data) => {
    const names = [data.name];
    for (let p = tests.get(data.parentId); p; p = tests.get(p.parentId)) names.unshift(p.name);
    return names.join(' › ');
  };

  for await (const { type, data } of source) {
    if (data?.testId !== undefined && (type === 'test:enqueue' || type === 'test:dequeue')) {
      tests.set(data.testId, { name: data.name, parentId: data.parentId });
    }
    if (type === 'test:enqueue' && data.nesting === 0) {
      const file = fileOf(data);
      lastTopFile = file;
      topFiles.set(data.testId, file);
      entry(file).enqueued++;
    } else if (type === 'test:dequeue' && data.nesting === 0) {
      const file = fileOf(data);
      if (file !== current) {
        current = file;
        entry(file).cpu = process.cpuUsage();
      }
    } else if (type === 'test:pass' || type === 'test:fail') {
      const file = data.nesting === 0 ? fileOf(data) : current;
      const e = entry(file);
      const isSuite = data.details?.type === 'suite';
      const skipped = data.skip !== undefined || data.todo !== undefined;
      if (!isSuite) {
        if (skipped) e.skipped++;
        else if (type === 'test:pass') e.passed++;
        else e.failed++;
      }
      if (skipped) {
        const why = data.skip ?? data.todo;
        e.lines.push(`  ﹣ ${fullName(data)}${typeof why === 'string' ? `: ${why}` : ''}`);
      }
      if (type === 'test:fail') {
        const error = data.details?.error;
        // A suite that failed only because tests in it did says nothing new.
        if (!(isSuite && error?.failureType === 'subtestsFailed')) {
          if (isSuite) e.suiteFailed = true;
          const ms = data.details?.duration_ms;
          e.lines.push(`  ✖ ${fullName(data)}${ms === undefined ? '' : ` (${Math.round(ms)} ms)`}`);
          e.lines.push(indent(describeError(error), '      '));
        }
      }
      if (data.nesting === 0) {
        e.ended++;
        e.ms += data.details?.duration_ms ?? 0;
        if (e.ended >= e.enqueued) yield* finish(file, e);
      }
    } else if (type === 'test:diagnostic' && !(data.nesting === 0 && SUMMARY.test(data.message))) {
      const line = `  ℹ ${data.message}`;
      if (data.nesting > 0 && current) entry(current).lines.push(line);
      else yield `${line}\n`;
    }
  }

  function* finish(file, e) {
    // A failing hook of a suite whose tests all passed (an `after`) still fails the file.
    const failed = e.failed + (e.suiteFailed && e.failed === 0 ? 1 : 0);
    const used = e.cpu ? process.cpuUsage(e.cpu) : { user: 0, system: 0 };
    const cpuMs = Math.round((used.user + used.system) / 1000);
    const counts = [`${e.passed} passed`, failed ? `${failed} failed` : '', e.skipped ? `${e.skipped} skipped` : '']
      .filter(Boolean)
      .join(', ');
    yield `${failed ? '✖' : '✔'} ${file} (${counts}; ${seconds(e.ms)})\n`;
    if (e.lines.length > 0) yield `${e.lines.join('\n')}\n`;
    const record = { type: 'file', file, ms: Math.round(e.ms), cpuMs, passed: e.passed, failed, skipped: e.skipped };
    yield `${RECORD}${JSON.stringify(record)}\n`;
    files.delete(file);
  }
}
