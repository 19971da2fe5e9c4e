import type { LightMyRequestResponse } from 'fastify';
import {
  type GuestCheckoutInput,
  type HostedCardForm,
  type PaymentProvider,
  ProviderError,
} from '../../src/providers/index.ts';
import type { TestApp } from '../helpers/test-app.ts';

/** Where the stub provider's card form posts: another origin, as a real hosted page would be. */
export const STUB_FORM_ACTION = 'https://pay.example.test/hosted/card';

/**
 * The app's provider with startGuestPayment replaced: a fixed card form (with a hidden field a
 * careless page would fail to escape), or the provider's own error. Keeps the page tests
 * independent of the sandbox's card page.
 */
export function stubCheckout() {
  const calls: GuestCheckoutInput[] = [];
  const state: { failWith?: ProviderError['kind']; action: string } = { action: STUB_FORM_ACTION };
  const provider = (inner: PaymentProvider): PaymentProvider => ({
    ...inner,
    name: inner.name,
    async startGuestPayment(input): Promise<HostedCardForm> {
      calls.push(input);
      if (state.failWith) throw new ProviderError(state.failWith, `simulated ${state.failWith}`);
      return {
        kind: 'card-form',
        action: state.action,
        hiddenFields: { order_id: input.paymentRequestId, signature: '"><script>alert(1)</script>' },
      };
    },
  });
  return {
    provider,
    calls,
    failWith(kind: ProviderError['kind'] | undefined) {
      state.failWith = kind;
    },
    setAction(action: string) {
      state.action = action;
    },
  };
}

let nextAddress = 1;

/**
 * GET (or another method) on a guest page from its own client address: the guest pages allow
 * 30 requests a minute per IP, and a test file makes more than that on purpose or not.
 */
export async function guestCall(
  t: TestApp,
  url: string,
  opts: { ip?: string; method?: 'GET' | 'POST' | 'HEAD'; payload?: string; headers?: Record<string, string> } = {},
): Promise<LightMyRequestResponse> {
  const n = nextAddress++;
  const ip = opts.ip ?? `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
  const r = await t.app.inject({
    method: opts.method ?? 'GET',
    url,
    remoteAddress: ip,
    ...(opts.payload !== undefined ? { payload: opts.payload } : {}),
    ...(opts.headers ? { headers: opts.headers } : {}),
  });
  const requestId = r.headers['x-request-id'];
  t.responses.push({
    method: opts.method ?? 'GET',
    url,
    status: r.statusCode,
    requestId: typeof requestId === 'string' ? requestId : undefined,
    contentType: typeof r.headers['content-type'] === 'string' ? r.headers['content-type'] : undefined,
  });
  return r;
}

/** Text as a reader sees it: tags gone, entities of interest decoded, every kind of space one space. */
export function visibleText(body: string): string {
  return body
    .replace(/<[^>]*>/g, ' ')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&amp;', '&')
    .replace(/[\s\u00a0\u202f]+/g, ' ');
}

/** Money as the test writes it: narrow and non-breaking spaces as plain spaces. */
export function plainSpaces(text: string): string {
  return text.replace(/[\u00a0\u202f]/g, ' ');
}

export async function setLinkExpired(t: TestApp, id: string): Promise<void> {
  await t.db.query(`UPDATE payment_requests SET link_expires_at = now() - interval '1 minute' WHERE id = $1`, [id]);
}
