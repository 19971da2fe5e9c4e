import { errors } from './errors.ts';
import type { Status } from './statuses.ts';
import { targetOf } from './transitions.ts';

/**
 * A refund of `requested` cents (undefined: all that is left) on a payment that captured
 * `captured` and refunded `refunded` so far. The refund that gives the last cent back moves the
 * request to REFUNDED (the transition table's refund); a partial one keeps it CAPTURED with
 * more refunded, since money was kept.
 */
export function planRefund(
  status: Status,
  captured: number,
  refunded: number,
  requested: number | undefined,
): { cents: number; to: Status } {
  const left = captured - refunded;
  const cents = requested ?? left;
  if (cents <= 0 || cents > left) throw errors.refundAmountInvalid(left);
  return { cents, to: cents === left ? targetOf('refund') : status };
}
