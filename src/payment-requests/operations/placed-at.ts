import type { Settled } from '../money-runner.ts';

/**
 * When a hold was placed, where that is not the moment it is recorded: the provider's own
 * time for an answer settled later (reconcile read it in the order view), or the sandbox's test
 * clock for a run made for a given day. A hold's end counts from it: counted from a late
 * recording, it would be said to last longer than it does.
 */
export function placedAt(s: Settled, at: Date | undefined): { at?: Date } {
  if (s.outcome === 'succeeded' && s.placedAt) return { at: s.placedAt };
  return at && s.entry.provider === 'sandbox' ? { at } : {};
}

/** The test clock's moment for a sandbox row's record (its history, a failed guarantee's time). */
export function onTestClock(s: Settled, at: Date | undefined): { at?: Date } {
  return at && s.entry.provider === 'sandbox' ? { at } : {};
}
