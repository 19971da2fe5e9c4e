interface Waiting<Req, Res> {
  request: Req;
  resolve: (answer: Res) => void;
  reject: (err: unknown) => void;
}

export interface BatchOptions<Req> {
  /** Calls answered by one call of `many` at most. */
  maxGroup: number;
  /** Groups under way at once; calls made meanwhile wait for the next group. */
  inFlight: number;
  /**
   * Calls with the same key never share a group: the later one waits for a later group, so
   * that the two meet as two statements would (an Idempotency-Key sent twice at once).
   */
  keyOf?: (request: Req) => string | undefined;
}

/**
 * Concurrent calls answered in groups by one call of `many`, with no wait added while the
 * database keeps up: a call made when fewer than `inFlight` groups are under way goes at the
 * next turn of the event loop, with every call made in that turn; one made while they are all
 * under way waits for the first of them to end, and goes with every call made meanwhile. So a
 * lone call goes at once (one turn of the loop later), and under load each statement carries
 * as many calls as arrived while the ones before it ran.
 *
 * `many` answers each call at its own position: a value, or the error that call fails with
 * (one call's error is not another's). If `many` itself fails, every call of its group fails
 * with that error.
 */
export function batchCalls<Req, Res>(
  many: (requests: readonly Req[]) => Promise<readonly PromiseSettledResult<Res>[]>,
  options: BatchOptions<Req>,
): (request: Req) => Promise<Res> {
  let waiting: Waiting<Req, Res>[] = [];
  let running = 0;
  let scheduled = false;

  /** The calls of the next group, taken from `waiting` in order; the ones left keep theirs. */
  const nextGroup = (): Waiting<Req, Res>[] => {
    const group: Waiting<Req, Res>[] = [];
    const left: Waiting<Req, Res>[] = [];
    const keys = new Set<string>();
    for (const w of waiting) {
      const key = options.keyOf?.(w.request);
      if (group.length >= options.maxGroup || (key !== undefined && keys.has(key))) {
        left.push(w);
        continue;
      }
      if (key !== undefined) keys.add(key);
      group.push(w);
    }
    waiting = left;
    return group;
  };

  const start = () => {
    scheduled = false;
    while (running < options.inFlight && waiting.length > 0) {
      const group = nextGroup();
      running++;
      many(group.map((w) => w.request))
        .then(
          (answers) => {
            group.forEach((w, i) => {
              const a = answers[i];
              if (a === undefined)
                w.reject(new Error(`batchCalls: ${answers.length} answers for ${group.length} calls`));
              else if (a.status === 'fulfilled') w.resolve(a.value);
              else w.reject(a.reason);
            });
          },
          (err: unknown) => {
            for (const w of group) w.reject(err);
          },
        )
        .finally(() => {
          running--;
          start();
        });
    }
  };

  return (request) =>
    new Promise<Res>((resolve, reject) => {
      waiting.push({ request, resolve, reject });
      if (running < options.inFlight && !scheduled) {
        scheduled = true;
        // setImmediate runs once the calls already under way in this turn have reached their
        // await: the group holds every call made in it.
        setImmediate(start);
      }
    });
}
