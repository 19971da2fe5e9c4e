import { type PaymentProvider, ProviderError } from './payment-provider.js';

function bounded<T>(what: string, ms: number, call: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProviderError('unavailable', `${what}: no answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([call(), timeout]).finally(() => clearTimeout(timer));
}

/**
 * Every call to the provider answers within `ms`: a provider that hangs becomes 'unavailable'
 * (the API answers 502, the job retries next run) instead of holding a request open forever.
 */
export function withTimeouts(provider: PaymentProvider, ms: number): PaymentProvider {
  return {
    ...provider,
    startGuestPayment: (input) => bounded('start payment', ms, () => provider.startGuestPayment(input)),
    silentHold: (input) => bounded('silent hold', ms, () => provider.silentHold(input)),
    capture: (ref, amount) => bounded('capture', ms, () => provider.capture(ref, amount)),
    release: (ref) => bounded('release', ms, () => provider.release(ref)),
    refund: (ref, amount) => bounded('refund', ms, () => provider.refund(ref, amount)),
    getPayment: (ref) => bounded('payment state', ms, () => provider.getPayment(ref)),
  };
}
