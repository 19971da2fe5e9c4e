import { setLyraAccount } from '../../../src/provider-accounts/index.ts';
import { providerSecrets } from '../../../src/secrets/index.ts';
import type { TestApp } from '../../helpers/test-app.ts';
import { DEMO_SHOP, type LyraFake, modeOf, type ShopKeys } from './lyra-fake.ts';

/**
 * Gives a tenant a Lyra account on the fake, as `payreq tenant set-provider` stores it (the
 * secrets sealed with the app's key, bound to the tenant). `staticUrl`: where the fake serves
 * the embedded form's script, which the guest page then loads.
 */
export async function giveLyraAccount(
  t: TestApp,
  tenantId: string,
  fake: LyraFake,
  opts: { password?: string; staticUrl?: boolean } = {},
) {
  const secrets = {
    password: opts.password ?? DEMO_SHOP.password,
    public_key: DEMO_SHOP.publicKey,
    hmac_key: DEMO_SHOP.hmacKey,
  };
  return t.repos.providerAccounts.set(tenantId, {
    provider: 'lyra',
    shopId: DEMO_SHOP.shopId,
    apiUrl: fake.apiUrl,
    staticUrl: opts.staticUrl === false ? null : fake.staticUrl,
    mode: 'TEST',
    secretsSealed: providerSecrets(t.app.payreq.secretKeys).seal(JSON.stringify(secrets), tenantId),
  });
}

/**
 * Sets a tenant's account to the fake's shop of `keys`, as `payreq tenant set-provider` does
 * (src/provider-accounts/: checked with Charge/SDKTest, sealed, a new version), in the mode
 * the keys say. An account switch when the tenant had one (TEST to PRODUCTION at go-live).
 */
export function useLyraShop(t: TestApp, tenantId: string, fake: LyraFake, keys: ShopKeys) {
  return setLyraAccount({ repos: t.repos, secretKeys: t.app.payreq.secretKeys }, tenantId, {
    shopId: keys.shopId,
    apiUrl: fake.apiUrl,
    staticUrl: fake.staticUrl,
    mode: modeOf(keys),
    secrets: JSON.stringify({ password: keys.password, public_key: keys.publicKey, hmac_key: keys.hmacKey }),
  });
}
