import { randomBytes } from 'node:crypto';
import type { Repositories } from '../db/index.ts';
import { keyRing, type NamedKey, type SecretKeyRing } from './key-ring.ts';
import { secretBox } from './secret-box.ts';

// The service's keys as the service, the CLI and the daily job find them: one place, so a
// command seals and opens with exactly what the running service uses.

/** What of the configuration the keys are made of (config checks them; this room only uses them). */
export interface KeySettings {
  secretKey: string | undefined;
  production: boolean;
  secretKeyId: string;
  oldSecretKeys: readonly NamedKey[];
}

/** The provider accounts' secrets have their own key: a card token's box never opens them. */
export function providerSecrets(keys: SecretKeyRing) {
  return secretBox(keys, 'provider-account');
}

/**
 * SECRET_KEY when configured (production requires it: config refuses to start without).
 * Otherwise the key stored in the database on first use, so the service, the CLI and every
 * later start seal and open card tokens with the same key.
 */
export async function resolveSecretKey(config: KeySettings, repos: Repositories): Promise<string> {
  if (config.secretKey) return config.secretKey;
  if (config.production) throw new Error('SECRET_KEY is required in production');
  return repos.settings.getOrSet('secret_key', randomBytes(32).toString('hex'));
}

/** The current key (as resolveSecretKey finds it) under SECRET_KEY_ID, with the retired keys. */
export async function resolveSecretKeys(config: KeySettings, repos: Repositories): Promise<SecretKeyRing> {
  const key = await resolveSecretKey(config, repos);
  return keyRing({ id: config.secretKeyId, key }, config.oldSecretKeys);
}
