/**
 * The one loop of every background worker (the scheduler, the queue's worker): a round at
 * once, then one every `intervalMs` (or when the round says: the queue's next job is due), or
 * again at once while a round says more is waiting, or when `wake()` is called (a job's slot
 * freed, work queued by this process): then a round starts now, or right after the round in progress, never two
 * at once.
 * A round that throws is reported and the loop goes on (the database may be away for a
 * moment). The timer is unref'd, so a loop never keeps a process alive on its own; `stop()`
 * waits for the round in progress, and no round starts after it.
 */
export interface PollingLoop {
  /** Runs a round now, or right after the round in progress. */
  wake(): void;
  stop(): Promise<void>;
}

export interface PollingLoopOptions {
  /**
   * One round; resolves true when more work is waiting and the next round should not wait, or
   * the milliseconds until the next round (the queue knows when its next job is due).
   */
  round: () => Promise<boolean | number>;
  intervalMs: number;
  onError: (err: unknown) => void;
  /** Runs once before the first round (e.g. waking rows left by an earlier process). */
  before?: () => Promise<void>;
}

export function startPollingLoop(opts: PollingLoopOptions): PollingLoop {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  // True while `before` or a round runs: a wake then asks for one more round right after.
  let busy = true;
  let again = false;

  async function loop(): Promise<void> {
    if (stopped) return;
    busy = true;
    let more = false;
    let waitMs = opts.intervalMs;
    try {
      const r = await opts.round();
      if (typeof r === 'number') waitMs = Math.max(0, r);
      else more = r;
    } catch (err) {
      opts.onError(err);
    }
    busy = false;
    if (stopped) return;
    if (again) {
      again = false;
      more = true;
    }
    timer = setTimeout(
      () => {
        running = loop();
      },
      more ? 0 : waitMs,
    );
    timer.unref();
  }

  let running: Promise<void> = (async () => {
    if (opts.before) await opts.before().catch(opts.onError);
    await loop();
  })();

  return {
    wake() {
      if (stopped) return;
      if (busy) {
        again = true;
        return;
      }
      clearTimeout(timer);
      running = loop();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
