import { type PaymentProvider, ProviderError } from './payment-provider.js';

/**
 * The sandbox's server side: a simulated provider that accepts every capture, release and
 * refund at once. The guest-facing half (card page, IPN, silent holds) is being built for the
 * payments issue; until then those calls fail as a provider's technical error would.
 */
export function sandboxProvider(): PaymentProvider {
  const notYet = (what: string) => new ProviderError('technical', `sandbox: ${what} is not available yet`);
  return {
    name: 'sandbox',
    async startGuestPayment() {
      throw notYet('the guest payment');
    },
    parseNotification() {
      throw notYet('notifications');
    },
    async silentHold() {
      throw notYet('silent holds');
    },
    async capture() {},
    async release() {},
    async refund() {},
  };
}
