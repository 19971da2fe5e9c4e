import { type ApiKeySummary, PG, pgCode, type Repositories } from '../db/index.ts';
import { AppError } from '../domain/index.ts';
import { generateApiKey } from './api-key-format.ts';

/**
 * API keys: creation and the status rules, one implementation for the CLI and the back office.
 * Revocation is final; disable and enable move a key that is not revoked.
 */
export const keyErrors = {
  notFound: (prefix: string) => new AppError('api_key_not_found', 404, `No API key with prefix "${prefix}"`),
  revokedIsFinal: (prefix: string, action: string) =>
    new AppError(
      'api_key_revoked_final',
      409,
      `API key ${prefix} is revoked; revocation is final, it cannot be ${action}`,
    ),
};

const PREFIX = /^[A-Za-z0-9]{8}$/;

export function apiKeys(repos: Repositories, keyChanged: (prefix: string) => void = () => {}) {
  /** The key in `tenantId`'s scope (undefined: any tenant), or not found: the same for both. */
  async function find(prefix: string, tenantId?: string): Promise<ApiKeySummary> {
    const key = PREFIX.test(prefix) ? await repos.apiKeys.find(prefix) : undefined;
    if (!key || (tenantId !== undefined && key.tenant_id !== tenantId)) throw keyErrors.notFound(prefix);
    return key;
  }

  return {
    find,
    list: (tenantId: string) => repos.apiKeys.list(tenantId),

    /**
     * Creates a key and returns it whole: the only moment the secret exists outside a hash.
     * The caller shows it once; nothing logs it.
     */
    async create(k: {
      tenantId: string;
      label: string;
      expiresAt: Date | null;
    }): Promise<{ key: string; summary: ApiKeySummary }> {
      // Prefixes are random (57^8); a collision is rare enough that a few retries settle it.
      for (let attempt = 1; ; attempt++) {
        const generated = generateApiKey();
        try {
          const summary = await repos.apiKeys.insert({
            ...k,
            prefix: generated.prefix,
            secretHash: generated.secretHash,
          });
          return { key: generated.key, summary };
        } catch (err) {
          if (pgCode(err) !== PG.uniqueViolation || attempt >= 3) throw err;
        }
      }
    },

    async disable(prefix: string, tenantId?: string): Promise<ApiKeySummary> {
      const key = await find(prefix, tenantId);
      if (key.status === 'revoked') throw keyErrors.revokedIsFinal(key.prefix, 'disabled');
      // The update itself refuses a key revoked since the read above.
      const updated = await repos.apiKeys.setStatus(key.prefix, 'disabled');
      if (!updated) throw keyErrors.revokedIsFinal(key.prefix, 'disabled');
      keyChanged(key.prefix);
      return updated;
    },

    async enable(prefix: string, tenantId?: string): Promise<ApiKeySummary> {
      const key = await find(prefix, tenantId);
      if (key.status === 'revoked') throw keyErrors.revokedIsFinal(key.prefix, 'enabled');
      const updated = (await repos.apiKeys.enable(key.prefix)) ?? (await repos.apiKeys.find(key.prefix));
      if (!updated || updated.status === 'revoked') throw keyErrors.revokedIsFinal(key.prefix, 'enabled');
      keyChanged(key.prefix);
      return updated;
    },

    async revoke(prefix: string, tenantId?: string): Promise<ApiKeySummary> {
      const key = await find(prefix, tenantId);
      const updated = await repos.apiKeys.setStatus(key.prefix, 'revoked');
      keyChanged(key.prefix);
      return updated ?? { ...key, status: 'revoked' };
    },
  };
}
export type ApiKeys = ReturnType<typeof apiKeys>;
