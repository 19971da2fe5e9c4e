import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { coalesce } from '../../src/providers/sandbox/coalesce.ts';

describe('coalesce: calls made while the loop is busy answered by one call', () => {
  test('calls made together reach `many` once, each answered at its own position', async () => {
    const groups: number[][] = [];
    const double = coalesce(async (xs: readonly number[]) => {
      groups.push([...xs]);
      return xs.map((x) => x * 2);
    }, 64);
    const answers = await Promise.all([1, 2, 3, 4].map(double));
    assert.deepEqual(answers, [2, 4, 6, 8]);
    assert.deepEqual(groups, [[1, 2, 3, 4]]);
    // A call made later starts a group of its own.
    assert.equal(await double(5), 10);
    assert.deepEqual(groups, [[1, 2, 3, 4], [5]]);
  });

  test('a group never exceeds maxGroup', async () => {
    const sizes: number[] = [];
    const same = coalesce(async (xs: readonly number[]) => {
      sizes.push(xs.length);
      return xs;
    }, 3);
    assert.deepEqual(await Promise.all([1, 2, 3, 4, 5, 6, 7].map(same)), [1, 2, 3, 4, 5, 6, 7]);
    assert.deepEqual(sizes, [3, 3, 1]);
  });

  test('a failed group fails every call in it, and the next group starts clean', async () => {
    let fail = true;
    const f = coalesce(async (xs: readonly number[]) => {
      if (fail) throw new Error('ledger down');
      return xs;
    }, 64);
    const r = await Promise.allSettled([f(1), f(2)]);
    assert.deepEqual(
      r.map((x) => (x.status === 'rejected' ? (x.reason as Error).message : 'fulfilled')),
      ['ledger down', 'ledger down'],
    );
    fail = false;
    assert.equal(await f(3), 3);
  });

  test('fewer answers than calls: the calls without one fail instead of hanging', async () => {
    const short = coalesce(async (xs: readonly number[]) => xs.slice(1), 64);
    const r = await Promise.allSettled([short(1), short(2)]);
    assert.deepEqual(
      r.map((x) => x.status),
      ['fulfilled', 'rejected'],
    );
  });
});
