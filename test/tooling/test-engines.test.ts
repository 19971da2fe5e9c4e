import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
// @ts-expect-error: a JavaScript module of the runner, without types.
import { engineDependentFiles } from '../../scripts/test-engines.mjs';

/** The checkout: this file is in it. */
const checkout = fileURLToPath(new URL('../../', import.meta.url));
const fixture = (name: string) => `test/tooling/fixtures/${name}.fixture.ts`;
const onPostgres = (files: string[]): Promise<string[]> => engineDependentFiles(checkout, files);

// The PostgreSQL pass of `npm test` runs the files whose outcome can depend on the engine
// (scripts/test-engines.mjs): a file left out would never be tested on PostgreSQL.
describe('the files the PostgreSQL pass runs', () => {
  test('a file that reaches the engine database, through a helper or a dynamic import, or reads its name', async () => {
    const files = [fixture('engine-through-helper'), fixture('engine-dynamic-import'), fixture('engine-name')];
    assert.deepEqual(await onPostgres(files), files);
  });

  test('not a file of pure rules, nor one that keeps itself to PGlite', async () => {
    assert.deepEqual(await onPostgres([fixture('engine-free'), fixture('engine-marked')]), []);
  });

  test("the suite's own files: an API test is, a domain test and a browser test are not", async () => {
    const api = 'test/api/create.test.ts';
    const domain = 'test/domain/transitions.test.ts';
    const browser = 'test/guest/browser.test.ts';
    assert.deepEqual(await onPostgres([api, domain, browser]), [api]);
  });
});
