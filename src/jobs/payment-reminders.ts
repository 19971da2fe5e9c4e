import type { DayPlanRepository } from '../db/index.ts';

export interface RemindersResult {
  now: string;
  queued: number;
}

/**
 * `send_payment_reminders` (every 15 minutes): queues the reminder e-mail of each unpaid link
 * whose slot has come (docs/e-mail.md, "Reminders"). Queueing is one statement whose unique keys make
 * a slot queue once however many runs or instances see it; the outbox sends it in the
 * request's language and drops it if the request is paid, cancelled, expired or deleted first.
 */
export async function sendPaymentReminders(ctx: { dayPlan: DayPlanRepository }, now: Date): Promise<RemindersResult> {
  const queued = await ctx.dayPlan.queueReminders(now);
  return { now: now.toISOString(), queued: queued.length };
}
