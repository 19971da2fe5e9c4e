import type { RequestType, Status } from './statuses.ts';

/**
 * What can move a payment request. Each trigger names who or what asks; the table below
 * decides whether the move is allowed. Nothing else in the code base changes a status.
 */
export type Trigger =
  | 'guest_opens_form'
  | 'guest_registers_card'
  | 'guest_pays'
  | 'payment_refused'
  | 'payment_error'
  | 'deferred_hold_placed'
  | 'deferred_hold_refused'
  | 'deferred_hold_declined'
  | 'hold_renewed'
  | 'hold_renewal_refused'
  | 'guest_replaces_card'
  | 'capture'
  | 'release'
  | 'cancel'
  | 'reservation_cancelled'
  | 'refund'
  | 'hold_expired'
  | 'link_expired';

/** Where a status change came from, as recorded in the history (SQL CHECK mirrors it). */
export type Source = 'api' | 'admin' | 'ipn' | 'job' | 'guest';

/** Who made a change: where it came from, and the user or key when one is known. */
export interface Actor {
  source: Source;
  actor: string | null;
}

/** A money command's claim on a request while it talks to the provider. */
export type PendingAction = 'capture' | 'release' | 'refund' | 'hold';

export interface Transition {
  readonly from: readonly Status[];
  readonly trigger: Trigger;
  /** Only for this request type; undefined means both. */
  readonly requestType?: RequestType;
  readonly to: Status;
}

/**
 * The statuses of an open link: the guest may pay or register a card through it (again after
 * an error or a refused guarantee: a first attempt or an ERROR can end in any outcome of a
 * payment), the hotel may cancel it or send it again, reminders go, and it expires. The code's
 * every list of them is this one; the partial index on open links names the same three in its
 * migration (test/db/expiry-index.test.ts fails if the expiry's query stops using it).
 */
export const OPEN_LINK_STATUSES: readonly Status[] = ['NOT_INITIATED', 'PENDING', 'ERROR'];
const PAYABLE = OPEN_LINK_STATUSES;

/** Every move between statuses, the EXPIRED ones included (docs/lifecycle.md). Data, not code: read it top to bottom. */
export const TRANSITIONS: readonly Transition[] = [
  { from: ['NOT_INITIATED'], trigger: 'guest_opens_form', to: 'PENDING' },
  { from: PAYABLE, trigger: 'guest_registers_card', requestType: 'IMPRINT', to: 'AUTHORISED' },
  { from: PAYABLE, trigger: 'guest_pays', requestType: 'DEPOSIT', to: 'CAPTURED' },
  { from: PAYABLE, trigger: 'payment_refused', to: 'REFUSED' },
  { from: PAYABLE, trigger: 'payment_error', to: 'ERROR' },
  { from: ['AUTHORISED'], trigger: 'deferred_hold_placed', requestType: 'IMPRINT', to: 'AUTHORISED_TO_VALIDATE' },
  // A refused hold is a failed guarantee, not the end: ERROR keeps the link open for another
  // card (guest_registers_card from ERROR) and lets the hotel cancel (docs/lifecycle.md).
  { from: ['AUTHORISED'], trigger: 'deferred_hold_refused', requestType: 'IMPRINT', to: 'ERROR' },
  // A soft decline before the check-in day (funds short, issuer silent): the card stays the
  // guarantee and the next run tries again; the check-in day's refusal is deferred_hold_refused.
  { from: ['AUTHORISED'], trigger: 'deferred_hold_declined', requestType: 'IMPRINT', to: 'AUTHORISED' },
  // A hold renewed before the network lapses it: the new hold is the guarantee, the old one is
  // released (docs/holds.md). A renewal the bank refused keeps the old hold until it lapses and
  // marks the guarantee failed: the hotel is told, the guest asked for another card.
  { from: ['AUTHORISED_TO_VALIDATE'], trigger: 'hold_renewed', requestType: 'IMPRINT', to: 'AUTHORISED_TO_VALIDATE' },
  {
    from: ['AUTHORISED_TO_VALIDATE'],
    trigger: 'hold_renewal_refused',
    requestType: 'IMPRINT',
    to: 'AUTHORISED_TO_VALIDATE',
  },
  // After a refused renewal, the guest's new card (through the same link): the old hold stays the
  // guarantee until the next renewal run holds the new card and releases it.
  {
    from: ['AUTHORISED_TO_VALIDATE'],
    trigger: 'guest_replaces_card',
    requestType: 'IMPRINT',
    to: 'AUTHORISED_TO_VALIDATE',
  },
  { from: ['AUTHORISED_TO_VALIDATE'], trigger: 'capture', to: 'CAPTURED' },
  { from: ['AUTHORISED_TO_VALIDATE'], trigger: 'release', to: 'CANCELLED' },
  { from: OPEN_LINK_STATUSES, trigger: 'cancel', to: 'CANCELLED' },
  // The hotel's system cancelled the reservation a registered card guarantees, before its hold:
  // nothing is held, so nothing is released, and no hold may come. Not the API's cancel, which
  // the contract keeps to open links; only a connected PMS's cancellation asks it (docs/apaleo.md).
  { from: ['AUTHORISED'], trigger: 'reservation_cancelled', requestType: 'IMPRINT', to: 'CANCELLED' },
  { from: ['CAPTURED'], trigger: 'refund', to: 'REFUNDED' },
  { from: ['AUTHORISED_TO_VALIDATE'], trigger: 'hold_expired', to: 'EXPIRED' },
  { from: OPEN_LINK_STATUSES, trigger: 'link_expired', to: 'EXPIRED' },
];

/** The statuses from which `trigger` may move a request of `requestType`. */
export function allowedFrom(trigger: Trigger, requestType?: RequestType): Status[] {
  const from = new Set<Status>();
  for (const t of TRANSITIONS) {
    if (t.trigger !== trigger) continue;
    if (requestType && t.requestType && t.requestType !== requestType) continue;
    for (const s of t.from) from.add(s);
  }
  return [...from];
}

/** The triggers that can have made the move `from` → `to`: what a history row was. */
export function triggersOf(from: Status | null, to: Status): Trigger[] {
  if (from === null) return [];
  return TRANSITIONS.filter((t) => t.to === to && t.from.includes(from)).map((t) => t.trigger);
}

/** The target of `trigger` from `from`, or undefined when the table forbids it. */
export function nextStatus(from: Status, trigger: Trigger, requestType: RequestType): Status | undefined {
  const t = TRANSITIONS.find(
    (row) =>
      row.trigger === trigger && row.from.includes(from) && (!row.requestType || row.requestType === requestType),
  );
  return t?.to;
}

/**
 * The target status of a trigger; the same whatever the start, by construction of the table.
 * Repositories use it with allowedFrom() to write one conditional UPDATE.
 */
export function targetOf(trigger: Trigger): Status {
  const row = TRANSITIONS.find((t) => t.trigger === trigger);
  if (!row) throw new Error(`no transition for trigger ${trigger}`);
  return row.to;
}
