import type { PaymentProvider } from './payment-provider.js';

/**
 * The sandbox's server side: a simulated provider that accepts every capture, release and
 * refund at once. The guest-facing half (card page, IPN) comes with the payments issue.
 */
export function sandboxProvider(): PaymentProvider {
  return {
    name: 'sandbox',
    async capture() {},
    async release() {},
    async refund() {},
  };
}
