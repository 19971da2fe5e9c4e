// Loaded first (`--import`) in each test process scripts/run-tests.mjs starts.
import { writeSync } from 'node:fs';
import { beforeEach } from 'node:test';
import { RECORD, sourcePath } from './test-reporter.mjs';

// The runner holds an IPC channel to the process only to be told when it is gone: killed
// outright, it cannot stop its test processes itself, so each one then kills its own process
// group (itself and what its tests started: CLI children, chromium, nginx).
if (process.send) {
  process.on('disconnect', () => process.kill(-process.pid, 'SIGKILL'));
  process.channel?.unref();
}

// Which file runs now, told to the runner as its first test starts, written at once: the
// reporter's own output comes later, and a file whose test ends the process or never gives the
// event loop back must still be named.
let current;
beforeEach((t) => {
  if (t.filePath === current) return;
  current = t.filePath;
  writeSync(1, `${RECORD}${JSON.stringify({ type: 'start', file: sourcePath(current) })}\n`);
});

// Test files share this process one after another: the PGlite pool keeps the databases it emptied
// for the next file (test/helpers/pglite-pool.ts). `--test-force-exit` ends the process after
// its last test, with those databases.
globalThis[Symbol.for('payreq.test.shared-process')] = true;
