// Loaded with --import into every test-file process by scripts/run-tests.mjs (node's test runner
// hands its own flags down to the files it spawns). Node 20's reporters give no duration per
// file, so each file's process writes one line when it exits: its file, wall time since the
// process began (boot and module loading included) and its own CPU seconds. The runner prints
// the slowest. It does nothing in the runner itself, nor when the variable is missing.
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

const out = process.env.PAYREQ_TEST_TIMINGS;
const file = process.argv[1];
if (out && file && process.env.NODE_TEST_CONTEXT) {
  process.on('exit', () => {
    const cpu = process.cpuUsage();
    const line = {
      file: path.relative(process.cwd(), file),
      ms: Math.round(performance.now()),
      cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    };
    try {
      appendFileSync(out, `${JSON.stringify(line)}\n`);
    } catch {}
  });
}
