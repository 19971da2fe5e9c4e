/** How the client retries: the API's guidance, backoff with jitter on 429 and 5xx only. */
export interface RetryOptions {
  /** Attempts after the first; 0 turns retries off. Default 4. */
  maxRetries?: number;
  /** First backoff ceiling; doubles each attempt. Default 500 ms. */
  baseDelayMs?: number;
  /** Largest wait between two attempts. Default 30 s. */
  maxDelayMs?: number;
  /** For tests: the random source of the jitter and the way to wait. */
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

// 429: slow down; 5xx: the service or the provider had trouble. A 504 outcome_unknown is safe to
// retry because every POST carries an Idempotency-Key. 400, 401, 403, 404, 409*, 422: something
// must change first (a 409 is a short wait on another call: retried too).
const RETRIABLE = new Set([409, 429, 500, 502, 503, 504]);

export function isRetriable(status: number): boolean {
  return RETRIABLE.has(status);
}

/** `Retry-After` in seconds or as an HTTP date, in milliseconds; undefined when absent or bad. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * A fetch that retries: full jitter (a random wait up to base * 2^attempt, capped), never less
 * than the server's Retry-After. The request is cloned per attempt, so its body and its
 * Idempotency-Key go out unchanged each time.
 */
export function retryingFetch(inner: (r: Request) => Promise<Response>, o: RetryOptions = {}) {
  const maxRetries = o.maxRetries ?? 4;
  const base = o.baseDelayMs ?? 500;
  const cap = o.maxDelayMs ?? 30_000;
  const random = o.random ?? Math.random;
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  return async (request: Request): Promise<Response> => {
    for (let attempt = 0; ; attempt++) {
      let response: Response | undefined;
      let error: unknown;
      try {
        response = await inner(request.clone());
      } catch (err) {
        error = err; // a network failure: the request may or may not have arrived
      }
      const last = attempt >= maxRetries;
      if (response && (!isRetriable(response.status) || last)) return response;
      if (!response && last) throw error;
      const jitter = random() * Math.min(cap, base * 2 ** attempt);
      const wait = Math.max(jitter, retryAfterMs(response?.headers.get('retry-after') ?? null) ?? 0);
      await response?.body?.cancel();
      await sleep(Math.min(wait, cap));
    }
  };
}
