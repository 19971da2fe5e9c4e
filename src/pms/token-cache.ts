/**
 * Apaleo access tokens, one per hotel connection at a time, cached in this process until they
 * expire. A hotel's postings share its token; concurrent callers needing a new one wait for the
 * same request to the identity server (one token per hotel at a time). A token Apaleo answered
 * 401 to is dropped once, by whoever saw it first, so a burst of 401s renews it once.
 */

export interface CachedToken {
  value: string;
  /** When it stops being used: its lifetime less a margin, so a call never carries a dying token. */
  usableUntil: number;
}

/** A token's lifetime is cut by this margin (and never below half of it). */
const MARGIN_MS = 60_000;

export function usableUntil(now: number, expiresInSeconds: number): number {
  const life = Math.max(expiresInSeconds, 1) * 1000;
  return now + Math.max(life - MARGIN_MS, life / 2);
}

export interface TokenCache {
  /** The connection's token: the cached one while usable, else one fetched (once for all callers). */
  get(key: string, fetchToken: () => Promise<CachedToken>): Promise<CachedToken>;
  /** Drops `token` if it is still the cached one (Apaleo refused it). */
  drop(key: string, token: string): void;
  /** Forgets a connection's token (disconnected, or connected anew). */
  forget(keyPrefix: string): void;
}

export function tokenCache(now: () => number = Date.now): TokenCache {
  const tokens = new Map<string, CachedToken>();
  const inFlight = new Map<string, Promise<CachedToken>>();
  return {
    async get(key, fetchToken) {
      const cached = tokens.get(key);
      if (cached && cached.usableUntil > now()) return cached;
      const pending = inFlight.get(key);
      if (pending) return pending;
      const fetching = fetchToken()
        .then((t) => {
          tokens.set(key, t);
          return t;
        })
        .finally(() => inFlight.delete(key));
      inFlight.set(key, fetching);
      return fetching;
    },
    drop(key, token) {
      if (tokens.get(key)?.value === token) tokens.delete(key);
    },
    forget(keyPrefix) {
      for (const key of tokens.keys()) if (key.startsWith(keyPrefix)) tokens.delete(key);
    },
  };
}

/** This process's tokens: the service, the CLI commands it runs, and its jobs share them. */
export const processTokens: TokenCache = tokenCache();
