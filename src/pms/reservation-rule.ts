/**
 * A payment request from an Apaleo reservation: the guest, the stay, and the amount by the
 * hotel's rule (an IMPRINT for the stay's amount, or a DEPOSIT of N % of it or of its first N
 * nights), or, for the back office's form, the balance the guest owes. Pure.
 */
import type { CreatePaymentRequestInput, Currency, Language } from '../domain/index.ts';
import type { ApaleoReservation } from './apaleo-wire.ts';
import type { ReservationRuleKind } from './pms-repository.ts';

export interface ReservationRule {
  kind: ReservationRuleKind;
  /** N % or N nights; none for an IMPRINT. */
  value: number | null;
}

const CURRENCIES: readonly string[] = ['EUR', 'CHF', 'USD'];
const LANGUAGES: readonly string[] = ['en', 'fr', 'de'];

/** The guest's preferred language (`de`, `de-DE`) when payreq speaks it; else none (the default). */
export function languageOf(preferred: string | null): Language | undefined {
  const code = preferred?.slice(0, 2).toLowerCase() ?? '';
  return LANGUAGES.includes(code) ? (code as Language) : undefined;
}

const cents = (amount: number) => Math.round(amount * 100);

/** The stay's amount in minor units: the sum of its nights, or its total where nights are not given. */
function stayCents(r: ApaleoReservation): number {
  return r.totalGrossAmount ? cents(r.totalGrossAmount.amount) : r.nights.reduce((s, n) => s + cents(n.amount), 0);
}

/** The rule's amount, in minor units. */
export function ruleAmountCents(r: ApaleoReservation, rule: ReservationRule): number {
  const stay = stayCents(r);
  if (rule.kind === 'imprint') return stay;
  const n = rule.value ?? 0;
  if (rule.kind === 'deposit_percent') return Math.round((stay * n) / 100);
  if (r.nights.length > 0) return r.nights.slice(0, n).reduce((s, night) => s + cents(night.amount), 0);
  const nights = Math.max(Math.round((Date.parse(r.departure) - Date.parse(r.arrival)) / 86_400_000), 1);
  return Math.round((stay * Math.min(n, nights)) / nights);
}

/** What keeps a reservation from becoming a request, in words; undefined: nothing. */
export function whyNoRequest(r: ApaleoReservation): string | undefined {
  if (!r.guest.email) return `reservation "${r.id}" has no guest e-mail`;
  if (!r.guest.lastName && !r.guest.firstName) return `reservation "${r.id}" has no guest name`;
  const currency = r.totalGrossAmount?.currency ?? r.nights[0]?.currency;
  if (!currency || !CURRENCIES.includes(currency)) return `reservation "${r.id}" is in ${currency ?? 'no currency'}`;
  return undefined;
}

/** The create body of the request the rule makes of a reservation (see whyNoRequest first). */
export function requestByRule(r: ApaleoReservation, rule: ReservationRule): CreatePaymentRequestInput {
  const amount = ruleAmountCents(r, rule) / 100;
  const language = languageOf(r.guest.language);
  return {
    request_type: rule.kind === 'imprint' ? 'IMPRINT' : 'DEPOSIT',
    amount,
    currency: (r.totalGrossAmount?.currency ?? r.nights[0]?.currency ?? 'EUR') as Currency,
    guest_email: r.guest.email ?? '',
    guest_first_name: r.guest.firstName || (r.guest.lastName ?? ''),
    guest_last_name: r.guest.lastName || (r.guest.firstName ?? ''),
    ...(language ? { language } : {}),
    reservation_ref: r.id,
    reservation_data: { checkin: r.arrival, checkout: r.departure },
  };
}

/**
 * The back office's new-request form from a reservation: the guest's name, e-mail and language,
 * the dates, and the balance the guest owes (Apaleo's balance is negative while the guest owes;
 * before anything is charged it is nothing, and the stay's amount is what is owed).
 */
export function formFromReservation(r: ApaleoReservation): Record<string, string> {
  const owed = r.balance && r.balance.amount < 0 ? cents(-r.balance.amount) : stayCents(r);
  const currency = r.balance?.currency ?? r.totalGrossAmount?.currency;
  const language = languageOf(r.guest.language);
  const form: Record<string, string> = { reservation_ref: r.id };
  if (r.guest.firstName) form.guest_first_name = r.guest.firstName;
  if (r.guest.lastName) form.guest_last_name = r.guest.lastName;
  if (r.guest.email) form.guest_email = r.guest.email;
  if (language) form.language = language;
  if (r.arrival) form.checkin = r.arrival;
  if (r.departure) form.checkout = r.departure;
  if (owed > 0) form.amount = (owed / 100).toFixed(2);
  if (currency && CURRENCIES.includes(currency)) form.currency = currency;
  return form;
}
