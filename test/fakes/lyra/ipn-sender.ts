import { setTimeout as delay } from 'node:timers/promises';

export interface Delivery {
  /** Attempts made, the last one included. */
  attempts: number;
  delivered: boolean;
  /** Why each failed attempt failed: `HTTP 500`, a socket error code. */
  failures: string[];
}

/**
 * Posts a notification form-encoded, as Lyra does (protocol notes section 4), until the
 * receiver answers 2xx. Lyra's retry schedule is not recorded: the doubling backoff and the
 * attempt limit here are INVENTED, small enough for tests.
 */
export async function sendIpn(url: string, body: string, baseDelayMs = 20, maxAttempts = 5): Promise<Delivery> {
  const failures: string[] = [];
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const failure = await postOnce(url, body);
    if (!failure) return { attempts: attempt, delivered: true, failures };
    failures.push(failure);
    if (attempt < maxAttempts) await delay(baseDelayMs * 2 ** (attempt - 1));
  }
  return { attempts: maxAttempts, delivered: false, failures };
}

async function postOnce(url: string, body: string): Promise<string | undefined> {
  try {
    const r = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(5_000),
    });
    await r.body?.cancel().catch(() => {});
    return r.ok ? undefined : `HTTP ${r.status}`;
  } catch (err) {
    return (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
  }
}
