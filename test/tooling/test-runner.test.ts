import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

/** The checkout: this file is in it. */
const checkout = fileURLToPath(new URL('../../', import.meta.url));
const fixture = (name: string) => `test/tooling/fixtures/${name}.fixture.ts`;

/** `npm test -- FILES` as CI calls it, on PGlite, in one test process, with short time limits. */
function startRunner(files: string[], env: Record<string, string> = {}) {
  const { TEST_POSTGRES_URL: _engine, ...inherited } = process.env;
  const child = spawn(process.execPath, ['scripts/run-tests.mjs', ...files], {
    cwd: checkout,
    env: { ...inherited, TEST_CONCURRENCY: '1', TEST_TIMEOUT_S: '1', TEST_FILE_TIMEOUT_S: '8', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d));
  child.stderr.on('data', (d: Buffer) => (output += d));
  const ended = new Promise<{ code: number | null; output: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, output })),
  );
  return { child, ended, output: () => output };
}

const lastLine = (output: string) => output.trim().split('\n').at(-1);

/** Whether process `pid` still runs (a zombie, ended but not yet reaped, does not). */
function alive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
}

async function until(what: string, check: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`still waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('npm test (scripts/run-tests.mjs)', { timeout: 240_000 }, () => {
  // One test process runs them all, so each file that fails, ends its process or hangs must
  // still be counted, named with what happened, and leave the files after it to run.
  test('a failing, a crashing and a hanging file each fail the run, counted, with what went wrong', async () => {
    const files = ['passes', 'fails', 'crashes', 'hangs', 'spins'].map(fixture);
    const { code, output } = await startRunner(files).ended;
    assert.equal(code, 1, output);
    // A failing assertion: its diff, under its file's block; a failing before hook: its error, and its test counted.
    assert.match(output, /✖ compares \(test\/tooling\/fixtures\/fails\.fixture\.ts:7\)\n/, output);
    assert.match(output, /\+\s+total: 3,?\n\s+-\s+total: 4/, output);
    assert.match(output, /✖ a suite whose before hook fails \(\S+:10\)\n\s+Error: the before hook broke here/, output);
    assert.match(output, /✖ never runs \(\S+:14\)\n\s+test did not finish before its parent and was cancelled/, output);
    // A test that never ends: the test time limit; the test after it still runs.
    assert.match(output, /✖ never ends \(\S+:5\)\n\s+test timed out after 1000ms/, output);
    assert.match(output, /✔ runs after it/, output);
    // A file that ends its process, and one that never gives the event loop back.
    assert.match(output, /✖ test\/tooling\/fixtures\/crashes\.fixture\.ts its process ended \(exit 7\)/, output);
    assert.match(output, /✖ test\/tooling\/fixtures\/spins\.fixture\.ts took over 8 s: its process was killed/, output);
    // passes: 1 and 1 skipped; fails: 1 passed, 2 failed; crashes 1; hangs 1 and 1; spins 1.
    assert.equal(lastLine(output), '3 passed, 5 failed, 1 skipped', output);
  });

  test('files that pass end the run with status 0 and the count; a skip with its reason', async () => {
    const { code, output } = await startRunner([fixture('passes')]).ended;
    assert.equal(code, 0, output);
    assert.match(output, /﹣ is skipped \([\d.]+ms\) # a fixture of the runner test/, output);
    assert.equal(lastLine(output), '1 passed, 0 failed, 1 skipped', output);
  });

  test('a file that does not exist is named, and nothing runs', async () => {
    const { code, output } = await startRunner([fixture('passes'), 'test/tooling/no-such.test.ts']).ended;
    assert.equal(code, 2, output);
    assert.equal(lastLine(output), 'No such test file: test/tooling/no-such.test.ts', output);
    assert.doesNotMatch(output, /passes\.fixture\.ts \(/, 'not run');
    assert.doesNotMatch(output, /at \w+ \(/, 'no stack trace');
  });

  // Stopped, the runner stops its test processes and what their tests started; killed outright,
  // the test processes notice and stop themselves.
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    test(`stopped by ${signal}, it leaves no test process or child behind`, async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'payreq-runner-test-'));
      const pids = path.join(dir, 'pids');
      try {
        const runner = startRunner([fixture('lingers')], { RUNNER_FIXTURE_PIDS: pids, TEST_TIMEOUT_S: '600' });
        let left: number[] = [];
        await until(`the fixture's pids\n${runner.output()}`, () => {
          try {
            left = readFileSync(pids, 'utf8').split(' ').map(Number);
            return left.length === 2;
          } catch {
            return false;
          }
        });
        assert.ok(left.every(alive));
        runner.child.kill(signal);
        await runner.ended;
        await until(`pids ${left.filter(alive).join(', ')} to end`, () => !left.some(alive), 10_000);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
