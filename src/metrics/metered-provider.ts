import { declineReasonOf, type PaymentProvider, ProviderError } from '../providers/index.ts';
import type { ProviderOutcome, ServiceMetrics } from './service-metrics.ts';

function outcomeOf(err: unknown): ProviderOutcome {
  return err instanceof ProviderError ? err.kind : 'error';
}

/**
 * The provider with every call timed and counted by operation and outcome, and each refusal by
 * its reason. It wraps the
 * provider as the service uses it (timeouts included), so a call cut off by its timeout counts
 * as `unavailable` (a read) or `unknown` (a money call, now in doubt) with the time it was given.
 */
export function meteredProvider(provider: PaymentProvider, metrics: ServiceMetrics): PaymentProvider {
  const timed =
    <A extends unknown[], R>(operation: string, call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const t0 = performance.now();
      const seconds = () => (performance.now() - t0) / 1000;
      try {
        const result = await call(...args);
        metrics.providerCall(provider.name, operation, 'ok', seconds());
        return result;
      } catch (err) {
        metrics.providerCall(provider.name, operation, outcomeOf(err), seconds());
        // A refusal also counts by its reason (docs/holds.md): what the banks say, at a glance.
        if (err instanceof ProviderError && err.kind === 'refused')
          metrics.providerDecline(
            provider.name,
            operation,
            declineReasonOf(provider.name, err.answer?.declineCode ?? null),
          );
        throw err;
      }
    };
  const confirm = provider.confirmGuestReturn?.bind(provider);
  return {
    name: provider.name,
    ...(provider.hostedCheckout ? { hostedCheckout: provider.hostedCheckout } : {}),
    ...(confirm ? { confirmGuestReturn: timed('confirm_guest_return', confirm) } : {}),
    parseNotification: (raw, headers) => provider.parseNotification(raw, headers),
    readBrowserReturn: (raw) => provider.readBrowserReturn(raw),
    startGuestPayment: timed('start_guest_payment', (input) => provider.startGuestPayment(input)),
    getOrder: timed('get_order', (orderId) => provider.getOrder(orderId)),
    silentHold: timed('silent_hold', (call) => provider.silentHold(call)),
    capture: timed('capture', (call) => provider.capture(call)),
    release: timed('release', (call) => provider.release(call)),
    refund: timed('refund', (call) => provider.refund(call)),
    void: timed('void', (call) => provider.void(call)),
  };
}
