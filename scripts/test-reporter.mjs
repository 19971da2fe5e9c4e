// The reporter of each test process scripts/run-tests.mjs starts: Node's own `spec` output, held
// back until each top-level test (a file's describe) ends, so that the blocks of the processes
// that print side by side do not mix, with each failure's error in full under its block (spec
// keeps them for its recap at the end, which a process killed later never prints); and, after
// each, the process's counts so far, written to the file PAYREQ_TEST_COUNTS names, for the runner
// to sum. A suite that failed by a hook of its own while its tests passed counts one failure.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { spec } from 'node:test/reporters';
import { inspect } from 'node:util';

/** node:test's closing counts, printed as diagnostics of the root: the runner prints its own. */
const SUMMARY = /^(tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) [\d.]+$/;

export default async function* reporter(source) {
  const out = new spec().setEncoding('utf8');
  const counts = { passed: 0, failed: 0, skipped: 0, ms: {} };
  let failedInFile = 0;
  let hookFailed = false;
  let errors = '';
  for await (const event of source) {
    const { type, data } = event;
    if (type === 'test:summary' || (type === 'test:diagnostic' && data.nesting === 0 && SUMMARY.test(data.message)))
      continue;
    out.write(event);
    if (type !== 'test:pass' && type !== 'test:fail') continue;
    const suite = data.details?.type === 'suite';
    const error = data.details?.error;
    if (type === 'test:fail' && error?.failureType !== 'subtestsFailed') {
      // node:test wraps what a test threw; a timeout or a cancel is a string in `cause`.
      const text = typeof error?.cause === 'string' ? error.cause : inspect(error?.cause ?? error, { depth: 6 });
      const where = data.file ? ` (${path.relative(process.cwd(), data.file)}:${data.line})` : '';
      errors += `  ✖ ${data.name}${where}\n${text.trim().replace(/^/gm, '      ')}\n`;
    }
    if (data.skip !== undefined || data.todo !== undefined) counts.skipped += suite ? 0 : 1;
    else if (!suite && type === 'test:pass') counts.passed++;
    else if (!suite) failedInFile++;
    else if (type === 'test:fail') hookFailed ||= error?.failureType !== 'subtestsFailed';
    if (data.nesting > 0) continue;
    counts.failed += failedInFile || (hookFailed ? 1 : 0);
    [failedInFile, hookFailed] = [0, false];
    const file = data.file ? path.relative(process.cwd(), data.file) : '(unknown file)';
    counts.ms[file] = (counts.ms[file] ?? 0) + Math.round(data.details?.duration_ms ?? 0);
    writeFileSync(process.env.PAYREQ_TEST_COUNTS ?? '/dev/null', JSON.stringify(counts));
    yield (out.read() ?? '') + errors;
    errors = '';
  }
  // Not spec's recap of the failures: printed under their blocks already.
  yield out.read() ?? '';
}
