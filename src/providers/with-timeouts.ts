import { type MoneyAnswer, type PaymentProvider, ProviderError } from './payment-provider.ts';

/**
 * A money call that had no answer in time. It was sent, so it may still happen: the runner
 * records the operation as in doubt, and `late` settles when (if) the answer arrives after all.
 */
export class ProviderTimeout extends ProviderError {
  readonly late: Promise<MoneyAnswer>;
  constructor(what: string, ms: number, late: Promise<MoneyAnswer>) {
    super('unknown', `${what}: no answer within ${ms} ms`);
    this.late = late;
    this.name = 'ProviderTimeout';
  }
}

function bounded<T>(call: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
    timer.unref();
  });
  return Promise.race([call, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Every call to the provider answers within `ms`, so a provider that hangs never holds a
 * request open. A read (the card form, an order's view) that times out changed nothing:
 * 'unavailable'. A money call that times out may have happened: ProviderTimeout ('unknown'),
 * carrying the call still under way, since nothing can take back what was sent.
 */
export function withTimeouts(provider: PaymentProvider, ms: number): PaymentProvider {
  const read = <T>(what: string, call: () => Promise<T>) =>
    bounded(call(), ms, () => new ProviderError('unavailable', `${what}: no answer within ${ms} ms`));
  const money = (what: string, call: () => Promise<MoneyAnswer>) => {
    const underway = call();
    // The late answer is someone's to read (the runner's); an unread rejection must not crash.
    underway.catch(() => undefined);
    return bounded(underway, ms, () => new ProviderTimeout(what, ms, underway));
  };
  const confirm = provider.confirmGuestReturn?.bind(provider);
  return {
    name: provider.name,
    ...(provider.hostedCheckout ? { hostedCheckout: provider.hostedCheckout } : {}),
    ...(confirm ? { confirmGuestReturn: (id, query) => read('guest return', () => confirm(id, query)) } : {}),
    parseNotification: (raw, headers) => provider.parseNotification(raw, headers),
    readBrowserReturn: (raw) => provider.readBrowserReturn(raw),
    startGuestPayment: (input) => read('start payment', () => provider.startGuestPayment(input)),
    getOrder: (orderId) => read('order view', () => provider.getOrder(orderId)),
    silentHold: (call) => money('silent hold', () => provider.silentHold(call)),
    capture: (call) => money('capture', () => provider.capture(call)),
    release: (call) => money('release', () => provider.release(call)),
    refund: (call) => money('refund', () => provider.refund(call)),
    void: (call) => money('void', () => provider.void(call)),
  };
}
