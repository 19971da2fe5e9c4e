import { type PaymentProvider, ProviderError, type ProviderPaymentRef } from '../../src/providers/index.js';

export interface ProviderCall {
  op: 'capture' | 'release' | 'refund' | 'hold';
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

  async function around<T>(call: ProviderCall, real: () => Promise<T>): Promise<T> {
    calls.push(call);
    state.entered++;
    if (state.holdUntil) await state.holdUntil;
    if (state.failWith) throw new ProviderError(state.failWith, `simulated ${state.failWith}`);
    const answer = await real();
    // The provider did it, but its answer never reached us (a timeout after the fact).
    if (state.loseAnswers) throw new ProviderError('unavailable', 'simulated lost answer');
    return answer;
  }

  // Wraps the app's real provider (built on the app's database) around the money calls.
  const provider = (inner: PaymentProvider): PaymentProvider => ({
    ...inner,
    capture: (ref, amountCents) => around({ op: 'capture', ref, amountCents }, () => inner.capture(ref, amountCents)),
    release: (ref) => around({ op: 'release', ref }, () => inner.release(ref)),
    refund: (ref, amountCents) => around({ op: 'refund', ref, amountCents }, () => inner.refund(ref, amountCents)),
    silentHold: (input) =>
      around(
        {
          op: 'hold',
          ref: { paymentRequestId: input.paymentRequestId, reference: input.reference, currency: input.currency },
          amountCents: input.amountCents,
        },
        () => inner.silentHold(input),
      ),
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
    /** How many calls have reached the provider so far (held ones included). */
    get entered() {
      return state.entered;
    },
  };
}
export type CountingProvider = ReturnType<typeof countingProvider>;
