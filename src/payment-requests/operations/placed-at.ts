import type { Settled } from '../money-runner.ts';

/**
 * When a hold was placed, where that is not the moment it is recorded: the provider's own
 * time for an answer settled later (reconcile read it in the order view), or the sandbox's test
 * clock for a run made for a given day. A hold's end counts from it: counted from a late
 * recording, it would be said to last longer than it does.
 */
export function placedAt(s: Settled, at: Date | undefined): { at?: Date; endsBy?: Date } {
  // A provider that states the hold's end (Stripe's capture_before): that end, not its network's table.
  const endsBy = s.outcome === 'succeeded' && s.holdEndsAt ? { endsBy: s.holdEndsAt } : {};
  if (s.outcome === 'succeeded' && s.placedAt) return { at: s.placedAt, ...endsBy };
  return at && s.entry.provider === 'sandbox' ? { at, ...endsBy } : endsBy;
}

/** The test clock's moment for a sandbox row's record (its history, a failed guarantee's time). */
export function onTestClock(s: Settled, at: Date | undefined): { at?: Date } {
  return at && s.entry.provider === 'sandbox' ? { at } : {};
}
