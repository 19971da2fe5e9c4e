/** Every status a payment request can hold (docs/lifecycle.md). The SQL CHECK constraint mirrors this list. */
export const STATUSES = [
  'NOT_INITIATED',
  'PENDING',
  'AUTHORISED',
  'AUTHORISED_TO_VALIDATE',
  'CAPTURED',
  'REFUSED',
  'ERROR',
  'CANCELLED',
  'EXPIRED',
  'REFUNDED',
] as const;
export type Status = (typeof STATUSES)[number];

export const REQUEST_TYPES = ['IMPRINT', 'DEPOSIT'] as const;
export type RequestType = (typeof REQUEST_TYPES)[number];

export const CURRENCIES = ['EUR', 'CHF', 'USD'] as const;
export type Currency = (typeof CURRENCIES)[number];

export const LANGUAGES = ['fr', 'en', 'de'] as const;
export type Language = (typeof LANGUAGES)[number];

/** The statuses a request ends in: nothing but a refund of a capture moves it further. */
export const TERMINAL_STATUSES = [
  'CAPTURED',
  'REFUSED',
  'CANCELLED',
  'EXPIRED',
  'REFUNDED',
] as const satisfies readonly Status[];
const TERMINAL: ReadonlySet<Status> = new Set<Status>(TERMINAL_STATUSES);

export function isTerminal(status: Status): boolean {
  return TERMINAL.has(status);
}

/**
 * Whether a request's hold is still on the guest's card: only while its amount is held
 * (AUTHORISED_TO_VALIDATE). A hold captured, released or failed has no end to show any more,
 * although the request keeps the time it would have lapsed.
 */
export function holdIsLive(status: Status): boolean {
  return status === 'AUTHORISED_TO_VALIDATE';
}

/** `order_cycle`: CLOSED once the transaction is finished (a terminal status), OPEN otherwise. */
export function orderCycle(status: Status): 'OPEN' | 'CLOSED' {
  return isTerminal(status) ? 'CLOSED' : 'OPEN';
}
