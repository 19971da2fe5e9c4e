import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { whereBuilder } from '../../src/db/where-builder.ts';

describe('where builder', () => {
  test('numbers the placeholders in the order the conditions and the limit are added', () => {
    const w = whereBuilder().and('tenant_id = ?', 't1').and('(created_at, id) < (?, ?::uuid)', 'at', 'id');
    const limit = w.param(51);
    assert.equal(w.clause, 'WHERE tenant_id = $1 AND (created_at, id) < ($2, $3::uuid)');
    assert.equal(limit, '$4');
    assert.deepEqual(w.params, ['t1', 'at', 'id', 51]);
  });

  test('no condition: no WHERE at all', () => {
    const w = whereBuilder();
    assert.equal(w.clause, '');
    assert.equal(w.param(10), '$1');
  });

  test('values stay out of the SQL text, whatever they hold', () => {
    const w = whereBuilder().and('name LIKE ?', "%'; DROP TABLE x; --?%");
    assert.equal(w.clause, 'WHERE name LIKE $1');
    assert.deepEqual(w.params, ["%'; DROP TABLE x; --?%"]);
  });

  test('a count of values that does not match the placeholders is a programming error', () => {
    assert.throws(() => whereBuilder().and('a = ? AND b = ?', 1), /1 value\(s\) for 2 placeholder/);
    assert.throws(() => whereBuilder().and("data ? 'key'"), /0 value\(s\) for 1 placeholder/);
  });
});
