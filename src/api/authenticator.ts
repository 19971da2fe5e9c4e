import { parseApiKey, secretMatches } from '../api-keys/index.ts';
import type { ApiKeyAuthRow, Database, Repositories } from '../db/index.ts';
import { errors } from '../domain/index.ts';

/** Who is calling, as the routes see it. */
export interface ApiCaller {
  keyId: string;
  keyPrefix: string;
  tenantId: string;
  timezone: string;
  createRateLimit: number | null;
  linkLifetimeDays: number;
  confirmationEmail: boolean;
  /** The tenant has a real provider account (not the sandbox), as of the cached key row. */
  realProvider: boolean;
}

interface CacheEntry {
  row: ApiKeyAuthRow;
  until: number;
}

const MAX_CACHED_KEYS = 10_000;

/**
 * The channel on which the database announces a change to what a cached key row holds: a
 * trigger (migration 0019) on tenants, api_keys and provider_accounts sends the tenant's id,
 * whichever process, instance or SQL session made the change.
 */
export const AUTH_CHANGES_CHANNEL = 'payreq_auth_changes';

/**
 * Checks `X-API-Key`. A key verified once is trusted for `cacheMs` without a database round
 * trip or a hash: the hot path of every call. A change made through this process (`forget`,
 * `forgetTenant`) applies to the very next call; one made elsewhere as soon as its notice
 * arrives (`follow`), and within `cacheMs` at worst while the notices are not followed. Expiry
 * is checked on every request against the cached expiry date.
 */
export function authenticator(repos: Repositories, cacheMs: number, now: () => number = Date.now) {
  const cache = new Map<string, CacheEntry>();
  const lastTouch = new Map<string, number>();

  function decide(row: ApiKeyAuthRow, prefix: string): ApiCaller {
    if (row.status === 'disabled') throw errors.unauthorized();
    if (row.status === 'revoked') throw errors.keyRevoked();
    if (row.expires_at && row.expires_at.getTime() <= now()) throw errors.keyExpired();
    touch(row.id);
    return {
      keyId: row.id,
      keyPrefix: prefix,
      tenantId: row.tenant_id,
      timezone: row.tenant_timezone,
      createRateLimit: row.tenant_create_rate_limit,
      linkLifetimeDays: row.tenant_link_lifetime_days,
      confirmationEmail: row.tenant_confirmation_email,
      realProvider: row.tenant_real_provider,
    };
  }

  // last_used_at is written at most once a minute per key and per process, off the request path.
  function touch(keyId: string) {
    const t = now();
    if ((lastTouch.get(keyId) ?? 0) > t - 60_000) return;
    lastTouch.set(keyId, t);
    repos.apiKeys.touch(keyId).catch(() => lastTouch.delete(keyId));
  }

  return {
    async authenticate(header: unknown): Promise<ApiCaller> {
      const parsed = parseApiKey(header);
      if (!parsed) throw errors.unauthorized();
      const key = header as string;
      const hit = cache.get(key);
      if (hit && hit.until > now()) return decide(hit.row, parsed.prefix);
      const row = await repos.apiKeys.findForAuth(parsed.prefix);
      if (!row || !secretMatches(parsed.secret, row.secret_hash)) throw errors.unauthorized();
      if (cacheMs > 0) {
        if (cache.size >= MAX_CACHED_KEYS) cache.clear();
        cache.set(key, { row, until: now() + cacheMs });
      }
      return decide(row, parsed.prefix);
    },
    /** Drops a key from the cache after its status changed. */
    forget(prefix: string) {
      for (const k of cache.keys()) if (k.startsWith(`${prefix}.`)) cache.delete(k);
    },
    /** Drops a tenant's keys after its settings (or one of its keys, or its account) changed. */
    forgetTenant(tenantId: string) {
      for (const [k, e] of cache) if (e.row.tenant_id === tenantId) cache.delete(k);
    },
    /**
     * Follows the database's change notices; a notice of unknown content (the listener was
     * away) empties the cache. Resolves to the function that stops following.
     */
    async follow(db: Database): Promise<() => Promise<void>> {
      if (!db.listen || cacheMs <= 0) return async () => {};
      return db.listen(AUTH_CHANGES_CHANNEL, (tenantId) => {
        if (tenantId) this.forgetTenant(tenantId);
        else cache.clear();
      });
    },
  };
}
export type Authenticator = ReturnType<typeof authenticator>;
