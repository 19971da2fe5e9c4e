import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { splitSqlStatements } from '../../src/db/sql-statements.ts';

describe('migration statement splitter', () => {
  test('splits at a semicolon ending a line, drops comment-only pieces', () => {
    assert.deepEqual(splitSqlStatements('-- head\nCREATE TABLE a (x int);\n\n-- c\nINSERT INTO a VALUES (1);  \n'), [
      'CREATE TABLE a (x int)',
      'INSERT INTO a VALUES (1)',
    ]);
  });

  test('a dollar-quoted body stays whole, with its own semicolons at ends of lines', () => {
    const fn = `CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO a VALUES (1);
  RETURN NULL;
END
$$`;
    const tagged = `DO $body$
BEGIN
  PERFORM 1;
END
$body$`;
    assert.deepEqual(splitSqlStatements(`${fn};\n${tagged};\nSELECT $1::int;\n`), [fn, tagged, 'SELECT $1::int']);
  });

  test('semicolons inside quotes, identifiers or comments do not split', () => {
    const s = `INSERT INTO a (t) VALUES ('x;\ny');\nSELECT 1 AS "odd;\nname";\nSELECT 2 -- not here;\n;\n`;
    assert.deepEqual(splitSqlStatements(s), [
      `INSERT INTO a (t) VALUES ('x;\ny')`,
      `SELECT 1 AS "odd;\nname"`,
      // A comment at the end of a line is left to PostgreSQL, which ignores it.
      'SELECT 2 -- not here;',
    ]);
  });
});
