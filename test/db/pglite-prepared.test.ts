import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Database, openDatabase } from '../../src/db/index.ts';

// PGlite runs each parameterised statement through PREPARE/EXECUTE with the values written as
// literals (src/db/pglite-database.ts): every value must come back exactly as it went in.
describe('PGlite prepared statements', () => {
  let db: Database;
  before(async () => {
    db = await openDatabase({ engine: 'pglite', dir: undefined });
  });
  after(() => db.close());

  const SQL =
    'SELECT $1::text AS text, $2::text[] AS list, $3::bytea AS bytes, $4::timestamptz AS at, $5::int AS n, $6::boolean AS flag, $7::jsonb AS doc, $8::text AS nothing';
  const hostile = `it's a \\ "quote" '); DROP TABLE x; -- :name $1 é 🏨`;
  const values = [
    hostile,
    ['a,b', 'c"d', 'e\\f', '{g}', 'NULL', ''],
    Buffer.from([0, 1, 2, 255]),
    new Date('2026-11-22T05:00:00.123Z'),
    -42,
    false,
    JSON.stringify({ k: hostile }),
    null,
  ];

  test('values come back unchanged, on the first call (prepare) and the next (execute)', async () => {
    for (let i = 0; i < 2; i++) {
      const r = await db.query<Record<string, unknown>>(SQL, values);
      const row = r.rows[0] as Record<string, unknown>;
      assert.equal(row.text, hostile);
      assert.deepEqual(row.list, values[1]);
      assert.deepEqual(Buffer.from(row.bytes as Uint8Array), values[2]);
      assert.equal((row.at as Date).toISOString(), '2026-11-22T05:00:00.123Z');
      assert.equal(row.n, -42);
      assert.equal(row.flag, false);
      assert.deepEqual(row.doc, { k: hostile });
      assert.equal(row.nothing, null);
    }
  });

  test('a statement whose table does not exist yet fails as usual, then works once it exists', async () => {
    const insert = 'INSERT INTO later (v) VALUES ($1)';
    await assert.rejects(db.query(insert, ['x']), (err: Error & { code?: string }) => err.code === '42P01');
    await db.query('CREATE TABLE later (v text)');
    const r = await db.query(insert, ['y']);
    assert.equal(r.rowCount, 1);
    const again = await db.query(insert, ['z']);
    assert.equal(again.rowCount, 1);
    const rows = await db.query<{ v: string }>('SELECT v FROM later ORDER BY v');
    assert.deepEqual(
      rows.rows.map((x) => x.v),
      ['y', 'z'],
    );
  });

  test('inside a transaction, a prepared statement runs and rolls back with it', async () => {
    await db.query('CREATE TABLE tx_rows (v int)');
    await db.query('INSERT INTO tx_rows (v) VALUES ($1)', [1]); // prepared now
    await assert.rejects(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO tx_rows (v) VALUES ($1)', [2]);
        throw new Error('stop');
      }),
    );
    const r = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM tx_rows WHERE v > $1', [0]);
    assert.equal(r.rows[0]?.n, 1);
  });
});
