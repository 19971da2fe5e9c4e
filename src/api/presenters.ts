import type { PaymentRequestRow, StatusRow } from '../db/index.js';
import { fromMinorUnits, orderCycle } from '../domain/index.js';

export function paymentLink(id: string): string {
  return `/payment/${id}/`;
}

/** The detail of a request: guest_phone and language never leave (the response schema strips them too). */
export function presentDetail(r: PaymentRequestRow) {
  return {
    uuid: r.id,
    reference: r.reference,
    request_type: r.request_type,
    status: r.status,
    amount: fromMinorUnits(r.amount),
    amount_captured: fromMinorUnits(r.amount_captured),
    amount_refunded: fromMinorUnits(r.amount_refunded),
    currency: r.currency,
    guest_email: r.guest_email,
    guest_first_name: r.guest_first_name,
    guest_last_name: r.guest_last_name,
    reservation_ref: r.reservation_ref,
    reservation_data: r.reservation_data,
    masked_pan: r.masked_pan,
    card_expiry_month: r.card_expiry_month,
    card_expiry_year: r.card_expiry_year,
    order_cycle: orderCycle(r.status),
    email_sent: r.email_sent,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
    hold_expires_at: r.hold_expires_at ? r.hold_expires_at.toISOString() : null,
    link_expires_at: r.link_expires_at.toISOString(),
  };
}

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
