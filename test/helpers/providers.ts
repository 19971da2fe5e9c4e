import type { FastifyInstance } from 'fastify';
import { type PaymentProvider, ProviderError } from '../../src/providers/index.ts';

/** What a money call named: its order, and our idempotency key. */
export interface ProviderPaymentRef {
  paymentRequestId: string;
  transactionId?: string;
  idempotencyKey: string;
}

/** The app's sandbox provider (behind its timeouts), as the service calls it. */
export function sandboxOf(app: FastifyInstance): PaymentProvider {
  const p = app.payreq.providers.byName('sandbox');
  if (!p) throw new Error('the sandbox is not the provider');
  return p;
}

export interface ProviderCall {
  op: 'capture' | 'release' | 'refund' | 'hold' | 'void';
  ref: ProviderPaymentRef;
  amountCents?: number;
}

/** A promise the test resolves when it chooses: lets a provider call hang without sleeping. */
export function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/**
 * The real sandbox provider behind a counter. `failWith` makes the next calls throw a
 * ProviderError of that kind; `holdUntil` makes them wait for a gate first (a provider that
 * hangs, then answers). Each setting stays until changed.
 */
export function countingProvider() {
  const calls: ProviderCall[] = [];
  const state: {
    failWith?: ProviderError['kind'];
    holdUntil?: Promise<void>;
    loseAnswers?: boolean;
    entered: number;
  } = { entered: 0 };
  /** Calls not finished yet (a held one, or one still at the real provider). */
  const underway = new Set<Promise<unknown>>();

  function around<T>(call: ProviderCall, real: () => Promise<T>): Promise<T> {
    const p = perform(call, real);
    underway.add(p);
    const forget = () => underway.delete(p);
    p.then(forget, forget);
    return p;
  }

  async function perform<T>(call: ProviderCall, real: () => Promise<T>): Promise<T> {
    calls.push(call);
    state.entered++;
    if (state.holdUntil) await state.holdUntil;
    if (state.failWith) throw new ProviderError(state.failWith, `simulated ${state.failWith}`);
    const answer = await real();
    // The provider did it, but its answer never reached us (a connection cut after the fact).
    if (state.loseAnswers) throw new ProviderError('unknown', 'simulated lost answer');
    return answer;
  }

  // Wraps the app's real provider (built on the app's database) around the money calls.
  const ref = (c: { orderId: string; idempotencyKey: string; transactionId?: string }): ProviderPaymentRef => ({
    paymentRequestId: c.orderId,
    idempotencyKey: c.idempotencyKey,
    ...(c.transactionId ? { transactionId: c.transactionId } : {}),
  });
  const provider = (inner: PaymentProvider): PaymentProvider => ({
    name: inner.name,
    startGuestPayment: (input) => inner.startGuestPayment(input),
    parseNotification: (raw, headers) => inner.parseNotification(raw, headers),
    readBrowserReturn: (raw) => inner.readBrowserReturn(raw),
    getOrder: (orderId) => inner.getOrder(orderId),
    void: (c) => around({ op: 'void', ref: ref(c) }, () => inner.void(c)),
    capture: (c) => around({ op: 'capture', ref: ref(c), amountCents: c.amountCents }, () => inner.capture(c)),
    release: (c) => around({ op: 'release', ref: ref(c) }, () => inner.release(c)),
    refund: (c) => around({ op: 'refund', ref: ref(c), amountCents: c.amountCents }, () => inner.refund(c)),
    silentHold: (c) => around({ op: 'hold', ref: ref(c), amountCents: c.amountCents }, () => inner.silentHold(c)),
  });

  return {
    provider,
    calls,
    count: (op: ProviderCall['op'], id?: string) =>
      calls.filter((c) => c.op === op && (id === undefined || c.ref.paymentRequestId === id)).length,
    failWith(kind: ProviderError['kind'] | undefined) {
      state.failWith = kind;
    },
    /** The next calls reach the real provider, then fail as if the answer was lost. */
    loseAnswers(on: boolean) {
      state.loseAnswers = on;
    },
    holdUntil(p: Promise<void> | undefined) {
      state.holdUntil = p;
    },
    /** Resolves once every call made so far has finished at the real provider (or failed before it). */
    async idle(): Promise<void> {
      while (underway.size > 0) await Promise.allSettled([...underway]);
    },
    /** How many calls have reached the provider so far (held ones included). */
    get entered() {
      return state.entered;
    },
  };
}
export type CountingProvider = ReturnType<typeof countingProvider>;
