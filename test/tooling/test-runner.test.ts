import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

/** The checkout (the runner sets it; run from the sources, this file is in it). */
const checkout = process.env.PAYREQ_TEST_CHECKOUT ?? fileURLToPath(new URL('../../', import.meta.url));
const fixture = (name: string) => `test/tooling/fixtures/${name}.fixture.ts`;

/** `npm test -- FILES` as CI calls it, on PGlite, `workers` at a time: its output and exit status. */
function runTests(files: string[], workers: number): Promise<{ code: number | null; output: string }> {
  const { TEST_POSTGRES_URL: _engine, ...env } = process.env;
  const child = spawn(process.execPath, ['scripts/run-tests.mjs', ...files], {
    cwd: checkout,
    // A file time limit short enough for the file that hangs.
    env: { ...env, TEST_CONCURRENCY: String(workers), TEST_FILE_TIMEOUT_S: '3' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d));
  child.stderr.on('data', (d: Buffer) => (output += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

const lastLine = (output: string) => output.trim().split('\n').at(-1);

// A worker that dies or hangs reports nothing for its file: the run still counts that file as
// one failure and names it, starts another worker for the files left, and keeps the counts of
// the files the lost worker had finished. One worker runs all three, so each loss matters.
test('a file whose worker dies or hangs fails the run, named; the other files still run and count', {
  timeout: 120_000,
}, async () => {
  const { code, output } = await runTests([fixture('passes'), fixture('crashes'), fixture('hangs')], 1);
  assert.equal(code, 1, output);
  assert.match(output, new RegExp(`✖ ${fixture('crashes')}: its worker ended \\(exit 7\\) before the file was done`));
  assert.match(output, new RegExp(`✖ ${fixture('hangs')} took over 3 s: its worker was stopped`));
  assert.equal(lastLine(output), '1 passed, 2 failed, 1 skipped', output);
});

test('files that pass end the run with status 0 and the count', { timeout: 120_000 }, async () => {
  const { code, output } = await runTests([fixture('passes')], 1);
  assert.equal(code, 0, output);
  assert.equal(lastLine(output), '1 passed, 0 failed, 1 skipped', output);
});
