// The hotel's day: what needs someone today (the back office's Today page, the daily digest).
export {
  type DayPlan,
  type DayPlanTenant,
  type DigestPayload,
  dayPlan,
  digestPayload,
  LAPSE_WINDOW_MS,
  LIST_LIMIT,
  type NotPaidOut,
} from './day-plan.ts';
export { DAY_PLAN_WORDS, type DayPlanWords, isGuaranteed } from './day-plan-words.ts';
