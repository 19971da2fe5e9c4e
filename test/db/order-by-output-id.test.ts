import assert from 'node:assert/strict';
import { globSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';

const root = path.resolve(import.meta.dirname, '../..');

/**
 * A statement that renames a number to text under its own name (`id::text AS id`) and orders by
 * a bare `id` orders by that text: PostgreSQL takes a bare name in ORDER BY as the output column
 * first, so "10" sorts before "9". Such statements must order by the table's column (`o.id`).
 * (A statement whose columns come from an interpolated constant is not seen: qualify its ORDER BY.)
 */
function textOrderedIds(source: string): string[] {
  const statements = source.match(/`[^`]*`/g) ?? [];
  return statements.filter(
    (sql) => /::text AS id\b/.test(sql) && /ORDER BY\s+(?:[\w.]+(?:\s+(?:ASC|DESC))?\s*,\s*)*(?<![\w.])id\b/i.test(sql),
  );
}

describe('statements that show ids as text order by the number', () => {
  test('the check finds a bare ORDER BY id over an id made text, and not a qualified one', () => {
    assert.equal(textOrderedIds('`SELECT id::text AS id FROM t ORDER BY created_at, id DESC`').length, 1);
    assert.equal(textOrderedIds('`SELECT id::text AS id FROM t ORDER BY id`').length, 1);
    assert.equal(textOrderedIds('`SELECT o.id::text AS id FROM t o ORDER BY o.id DESC`').length, 0);
    assert.equal(textOrderedIds('`SELECT id FROM t ORDER BY id`').length, 0);
  });

  test('no statement of src/ orders by an id it made text', () => {
    const files = globSync('src/**/*.ts', { cwd: root });
    const found = files.flatMap((f) =>
      textOrderedIds(readFileSync(path.join(root, f), 'utf8')).map((sql) => `${f}: ${sql.slice(0, 120)}`),
    );
    assert.deepEqual(found, []);
  });
});
