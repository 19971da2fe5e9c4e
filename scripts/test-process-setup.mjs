// Loaded first (`--import`) in each test process scripts/run-tests.mjs starts.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeEach } from 'node:test';

// The runner holds an IPC channel to the process only to be told when it is gone: killed
// outright, it cannot stop its test processes itself, so each one then kills its own process
// group (itself and what its tests started: CLI children, chromium, nginx).
if (process.send) {
  process.on('disconnect', () => process.kill(-process.pid, 'SIGKILL'));
  process.channel?.unref();
}

// Which file runs now, written at once for the runner (to PAYREQ_TEST_CURRENT) as its first test
// starts: a file whose test ends the process or never gives the event loop back must be named.
let current;
beforeEach((t) => {
  if (t.filePath === current || !process.env.PAYREQ_TEST_CURRENT) return;
  current = t.filePath;
  writeFileSync(process.env.PAYREQ_TEST_CURRENT, path.relative(process.cwd(), current));
});

// Test files share this process one after another: the PGlite pool keeps the databases it emptied
// for the next file (test/helpers/pglite-pool.ts). `--test-force-exit` ends the process after
// its last test, with those databases.
globalThis[Symbol.for('payreq.test.shared-process')] = true;
