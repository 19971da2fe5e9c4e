/**
 * The fake's time: Lyra's own clock as its transactions see it (creation and capture dates, a
 * hold's expiry, the nightly remittance). One per fake, shared by every shop it serves.
 *
 * INVENTED, for tests: it reads the real time until a test sets or advances it; from then on
 * it stands still at what the test said (so a test's dates are exact), moving only when told.
 */
export interface FakeClock {
  now(): Date;
  /** Moves the clock `ms` forward (backward when negative) from what it reads now. */
  advance(ms: number): void;
  /** Stops the clock at `d`. */
  set(d: Date): void;
}

export function fakeClock(): FakeClock {
  let fixed: number | undefined;
  const read = () => fixed ?? Date.now();
  return {
    now: () => new Date(read()),
    advance(ms) {
      if (!Number.isFinite(ms)) throw new Error(`fake clock: cannot advance by ${ms}`);
      fixed = read() + ms;
    },
    set(d) {
      if (Number.isNaN(d.getTime())) throw new Error('fake clock: invalid date');
      fixed = d.getTime();
    },
  };
}
