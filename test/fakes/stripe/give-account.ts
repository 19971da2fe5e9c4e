import { setStripeAccount } from '../../../src/provider-accounts/index.ts';
import type { ListeningApp } from '../../helpers/listening-app.ts';
import { FAKE_KEYS, type StripeFake } from './stripe-fake.ts';

/**
 * Sets a tenant's account to the fake's account of `secretKey`, as `payreq tenant set-provider
 * --provider stripe` does (src/provider-accounts/: the key checked, the webhook endpoint
 * created at the fake for PUBLIC_BASE_URL/ipn/stripe/, the secrets sealed, a new version).
 * `webhookSecret`: the operator made the endpoint in the dashboard (the fake makes it here).
 */
export async function useStripeAccount(
  t: ListeningApp,
  tenantId: string,
  fake: StripeFake,
  opts: { secretKey?: string; operatorEndpoint?: boolean } = {},
) {
  const secretKey = opts.secretKey ?? FAKE_KEYS.test;
  let webhookSecret: string | undefined;
  if (opts.operatorEndpoint) {
    const served = fake.accountOf(secretKey) ?? fake.addAccount(secretKey);
    webhookSecret = fake.addEndpoint(served.account, `${t.baseUrl}/ipn/stripe/`, ['*']).secret;
  }
  return setStripeAccount({ repos: t.repos, secretKeys: t.app.payreq.secretKeys, publicBaseUrl: t.baseUrl }, tenantId, {
    apiUrl: fake.apiUrl,
    secrets: JSON.stringify({ secret_key: secretKey, ...(webhookSecret ? { webhook_secret: webhookSecret } : {}) }),
  });
}
