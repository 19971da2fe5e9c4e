import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { batchCalls } from '../../src/db/call-batcher.ts';

/** A `many` that records each group and answers when the test lets it (or at once). */
function recorder(opts: { hold?: boolean } = {}) {
  const groups: string[][] = [];
  const releases: (() => void)[] = [];
  const many = async (requests: readonly string[]): Promise<PromiseSettledResult<string>[]> => {
    groups.push([...requests]);
    if (opts.hold) await new Promise<void>((resolve) => releases.push(resolve));
    return requests.map((r) =>
      r.startsWith('bad')
        ? { status: 'rejected', reason: new Error(`refused ${r}`) }
        : { status: 'fulfilled', value: `done ${r}` },
    );
  };
  return { groups, releases, many };
}

/** Lets the event loop turn until `check` holds (each call made waits one turn at most). */
async function until(check: () => boolean) {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((resolve) => setImmediate(resolve));
  assert.ok(check(), 'the condition never held');
}

describe('batchCalls: concurrent calls answered by groups', () => {
  test('a lone call goes alone and gets its own answer', async () => {
    const r = recorder();
    const call = batchCalls(r.many, { maxGroup: 8, inFlight: 2 });
    assert.equal(await call('a'), 'done a');
    assert.deepEqual(r.groups, [['a']]);
  });

  test('calls made in one turn go together; calls made while the groups run wait for the next one', async () => {
    const r = recorder({ hold: true });
    const call = batchCalls(r.many, { maxGroup: 8, inFlight: 1 });
    const first = ['a', 'b', 'c'].map(call);
    await until(() => r.groups.length === 1);
    const later = ['d', 'e'].map(call);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(r.groups, [['a', 'b', 'c']], 'no second group while the first runs');
    r.releases.shift()?.();
    assert.deepEqual(await Promise.all(first), ['done a', 'done b', 'done c']);
    await until(() => r.groups.length === 2);
    assert.deepEqual(r.groups[1], ['d', 'e']);
    r.releases.shift()?.();
    assert.deepEqual(await Promise.all(later), ['done d', 'done e']);
  });

  test('two groups under way at once with inFlight 2, each of maxGroup calls at most', async () => {
    const r = recorder({ hold: true });
    const call = batchCalls(r.many, { maxGroup: 3, inFlight: 2 });
    const all = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map(call);
    await until(() => r.groups.length === 2);
    assert.deepEqual(r.groups, [
      ['a', 'b', 'c'],
      ['d', 'e', 'f'],
    ]);
    r.releases.shift()?.();
    await until(() => r.groups.length === 3);
    assert.deepEqual(r.groups[2], ['g']);
    for (const release of r.releases.splice(0)) release();
    assert.deepEqual(
      await Promise.all(all),
      ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((x) => `done ${x}`),
    );
  });

  test('calls with one key never share a group, and the others keep their order', async () => {
    const r = recorder();
    const call = batchCalls(r.many, { maxGroup: 8, inFlight: 1, keyOf: (x) => x.split(':')[1] });
    const answers = await Promise.all(['a:1', 'b:1', 'c:2', 'd', 'e:2', 'f:1'].map(call));
    assert.deepEqual(r.groups, [['a:1', 'c:2', 'd'], ['b:1', 'e:2'], ['f:1']]);
    assert.equal(answers.length, 6);
  });

  test("one call's error is its own; a group whose `many` fails fails as a whole, and the next goes on", async () => {
    const r = recorder();
    const call = batchCalls(r.many, { maxGroup: 8, inFlight: 1 });
    const [ok, bad] = await Promise.allSettled([call('ok'), call('bad one')]);
    assert.deepEqual(ok, { status: 'fulfilled', value: 'done ok' });
    assert.equal(bad?.status, 'rejected');

    let fail = true;
    const failing = batchCalls(
      async (requests: readonly string[]) => {
        if (fail) throw new Error('the connection was lost');
        return requests.map((x) => ({ status: 'fulfilled' as const, value: x }));
      },
      { maxGroup: 8, inFlight: 1 },
    );
    const lost = await Promise.allSettled([failing('x'), failing('y')]);
    assert.deepEqual(
      lost.map((l) => (l.status === 'rejected' ? (l.reason as Error).message : 'answered')),
      ['the connection was lost', 'the connection was lost'],
    );
    fail = false;
    assert.equal(await failing('z'), 'z');
  });

  test('fewer answers than calls: the calls without one fail, none hangs', async () => {
    const call = batchCalls(async () => [{ status: 'fulfilled' as const, value: 'only one' }], {
      maxGroup: 8,
      inFlight: 1,
    });
    const [a, b] = await Promise.allSettled([call('a'), call('b')]);
    assert.deepEqual(a, { status: 'fulfilled', value: 'only one' });
    assert.equal(b?.status, 'rejected');
  });
});
