import { providerSecrets } from '../../../src/secrets/index.js';
import type { TestApp } from '../../helpers/test-app.js';
import { DEMO_SHOP, type LyraFake } from './lyra-fake.js';

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
