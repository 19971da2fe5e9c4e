import assert from 'node:assert/strict';
import { globSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

/** The checkout: this file is in it. */
const checkout = fileURLToPath(new URL('../../', import.meta.url));

/**
 * A hook outside any describe block: in a process that runs many files (scripts/run-tests.mjs,
 * `--test-isolation=none`), node:test makes it a hook of the process's root, so a `beforeEach`
 * would run before every test of every file there.
 */
const HOOK_OUTSIDE_DESCRIBE = /^(?:before|after|beforeEach|afterEach)\(/m;
const hooksOutside = (files: string[]) =>
  files.filter((f) => HOOK_OUTSIDE_DESCRIBE.test(readFileSync(`${checkout}${f}`, 'utf8')));

describe('test files share their process', () => {
  test('the check finds a hook outside any describe block', () => {
    assert.deepEqual(
      hooksOutside(['test/tooling/fixtures/hook-outside.fixture.ts', 'test/tooling/test-files.test.ts']),
      ['test/tooling/fixtures/hook-outside.fixture.ts'],
    );
  });

  test('no test file has a hook outside its describe blocks', () => {
    const files = globSync('test/**/*.test.ts', { cwd: checkout });
    assert.ok(files.length > 100, `${files.length} test files found`);
    assert.deepEqual(hooksOutside(files), []);
  });
});
