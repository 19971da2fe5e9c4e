import type { StatusRow } from '../db/index.ts';
import { fromMinorUnits, orderCycle } from '../domain/index.ts';
import { presentRequestDetail } from '../events/index.ts';

export function paymentLink(id: string): string {
  return `/payment/${id}/`;
}

/**
 * The detail of a request: guest_phone and language never leave (the response schema strips
 * them too). Events carry the same detail: it is defined once, in the events room.
 */
export const presentDetail = presentRequestDetail;

export function presentStatus(r: StatusRow) {
  return {
    uuid: r.id,
    reference: r.reference,
    reservation_ref: r.reservation_ref,
    request_type: r.request_type,
    status: r.status,
    order_cycle: orderCycle(r.status),
    amount: fromMinorUnits(r.amount),
    amount_captured: fromMinorUnits(r.amount_captured),
  };
}
