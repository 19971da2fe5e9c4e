import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/index.ts';

const POOLER = 'postgres://payreq:pw@pgbouncer.internal:6432/payreq';
const SERVER = 'postgresql://payreq:pw@db.internal:5432/payreq';

describe('DATABASE_URL and DATABASE_DIRECT_URL', () => {
  test('DATABASE_DIRECT_URL unset: everything goes to DATABASE_URL', () => {
    assert.deepEqual(loadConfig({ DATABASE_URL: SERVER }).database, { engine: 'postgres', url: SERVER });
  });

  test('set: the server itself beside a pooler', () => {
    assert.deepEqual(loadConfig({ DATABASE_URL: POOLER, DATABASE_DIRECT_URL: SERVER }).database, {
      engine: 'postgres',
      url: POOLER,
      directUrl: SERVER,
    });
  });

  test('only a PostgreSQL address, checked at start', () => {
    for (const bad of ['pglite://memory', 'mysql://db/payreq', 'db.internal:5432']) {
      assert.throws(
        () => loadConfig({ DATABASE_URL: POOLER, DATABASE_DIRECT_URL: bad }),
        (err: unknown) =>
          err instanceof ConfigError && /^DATABASE_DIRECT_URL must start with postgres:\/\//.test(err.message),
        bad,
      );
    }
  });

  test('PGlite ignores it: no pooler stands before a database in the process', () => {
    assert.deepEqual(loadConfig({ DATABASE_URL: 'pglite://memory', DATABASE_DIRECT_URL: SERVER }).database, {
      engine: 'pglite',
      dir: undefined,
    });
  });
});
