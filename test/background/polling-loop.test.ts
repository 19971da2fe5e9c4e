import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startPollingLoop } from '../../src/background/index.ts';

/** Resolves once `check` holds, polling on the event loop (no fixed sleep decides the outcome). */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('the background workers’ polling loop', () => {
  test('a round at once; rounds that say more is waiting follow at once, then it waits the interval', async () => {
    let rounds = 0;
    const loop = startPollingLoop({
      intervalMs: 60_000,
      round: async () => ++rounds < 3,
      onError: (err) => assert.fail(String(err)),
    });
    await until(() => rounds === 3, 'three rounds');
    // The third round said nothing more is waiting: the next one is a minute away.
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(rounds, 3);
    await loop.stop();
  });

  test('a round that throws is reported and the loop goes on', async () => {
    const errors: unknown[] = [];
    let rounds = 0;
    const loop = startPollingLoop({
      intervalMs: 1,
      round: async () => {
        rounds++;
        if (rounds === 1) throw new Error('database away');
        return false;
      },
      onError: (err) => errors.push(err),
    });
    await until(() => rounds >= 3, 'rounds after the failure');
    await loop.stop();
    assert.equal(errors.length, 1);
    assert.match(String(errors[0]), /database away/);
  });

  test('stop waits for the round in progress, and no round starts after it', async () => {
    let release = () => {};
    let started = 0;
    let ended = 0;
    const loop = startPollingLoop({
      intervalMs: 1,
      round: async () => {
        started++;
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        ended++;
        return true;
      },
      onError: (err) => assert.fail(String(err)),
    });
    await until(() => started === 1, 'the first round');
    let stopped = false;
    const stopping = loop.stop().then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(stopped, false, 'stop waits for the round');
    release();
    await stopping;
    assert.equal(ended, 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(started, 1, 'no round after stop, though the last said more was waiting');
  });

  test('before runs once, ahead of the first round; its failure is reported and rounds still run', async () => {
    const order: string[] = [];
    const errors: unknown[] = [];
    const loop = startPollingLoop({
      intervalMs: 60_000,
      before: async () => {
        order.push('before');
        throw new Error('cannot wake');
      },
      round: async () => {
        order.push('round');
        return false;
      },
      onError: (err) => errors.push(err),
    });
    await until(() => order.length === 2, 'before and the first round');
    await loop.stop();
    assert.deepEqual(order, ['before', 'round']);
    assert.equal(errors.length, 1);
  });

  test('wake runs a round now when idle, and once right after the round in progress when busy', async () => {
    let rounds = 0;
    let release = () => {};
    let hold = false;
    const loop = startPollingLoop({
      intervalMs: 60_000,
      round: async () => {
        rounds++;
        if (hold) {
          await new Promise<void>((resolve) => {
            release = resolve;
          });
        }
        return false;
      },
      onError: (err) => assert.fail(String(err)),
    });
    await until(() => rounds === 1, 'the first round');
    // Idle, waiting a minute: a wake starts a round now.
    hold = true;
    loop.wake();
    await until(() => rounds === 2, 'the woken round');
    // Busy: wakes during a round ask for one more round, right after it, not for one each.
    loop.wake();
    loop.wake();
    hold = false;
    release();
    await until(() => rounds === 3, 'the round after the busy one');
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(rounds, 3, 'two wakes during a round make one round after it');
    await loop.stop();
    loop.wake();
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(rounds, 3, 'no round after stop');
  });
});
