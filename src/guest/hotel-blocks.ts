import { formatMoney } from '../domain/index.ts';
import { holdDateFor, renewedUntil } from '../holds/index.ts';
import { html, type SafeHtml } from '../html/index.ts';
import { formatInstantWithZone, formatIsoDate, isIsoDate } from '../i18n/index.ts';
import type { GuestRequest, HotelDisplay } from './guest-request.ts';
import type { Messages } from './messages.ts';

/**
 * The hotel's own parts of a guest page: its name and logo, its contact, its terms, the stay
 * and, once paid, the receipt. Each part is left out while the hotel has not set it.
 */

/** The banner's hotel line: the logo (decorative: the name beside it says the same) and the name. */
export function hotelBanner(hotel: HotelDisplay): SafeHtml {
  return html`${hotel.logoPath ? html`<img class="logo" src="${hotel.logoPath}" alt="">` : ''}<p class="hotel">${hotel.name}</p>`;
}

/** `tel:` wants the digits and a leading + only. */
function telHref(phone: string): string {
  return `tel:${phone.startsWith('+') ? '+' : ''}${phone.replace(/\D/g, '')}`;
}

/** Phone and e-mail as links, when set; empty when neither is. */
export function contactLines(hotel: HotelDisplay, m: Messages): SafeHtml | '' {
  if (!hotel.phone && !hotel.contactEmail) return '';
  return html`<p class="contact">${hotel.phone ? html`${m.phoneLabel}${m.colon}<a href="${telHref(hotel.phone)}">${hotel.phone}</a>` : ''}${hotel.phone && hotel.contactEmail ? html`<br>` : ''}${hotel.contactEmail ? html`${m.emailLabel}${m.colon}<a href="mailto:${hotel.contactEmail}">${hotel.contactEmail}</a>` : ''}</p>`;
}

export function termsLink(hotel: HotelDisplay, m: Messages): SafeHtml | '' {
  return hotel.termsUrl
    ? html`<p class="terms"><a href="${hotel.termsUrl}" rel="noopener noreferrer">${m.termsLink}</a></p>`
    : '';
}

/** The foot of every page about a known request: who the hotel is and how to reach it. */
export function hotelFooter(hotel: HotelDisplay, m: Messages): SafeHtml | '' {
  if (!hotel.address && !hotel.phone && !hotel.contactEmail && !hotel.termsUrl) return '';
  const lines = (hotel.address ?? '').split('\n').filter((l) => l !== '');
  return html`<footer class="hotel-info">
<h2>${m.contactHeading}</h2>
<address>
<p>${hotel.name}${lines.map((l) => html`<br>${l}`)}</p>
${contactLines(hotel, m)}
</address>
${termsLink(hotel, m)}
</footer>`;
}

type Row = [label: string, value: string];

/** The booking: the PMS's reference, then the stay as far as the PMS described it. */
export function stayRows(req: GuestRequest, m: Messages): Row[] {
  const rows: Row[] = [[m.bookingReference, req.reservationRef]];
  if (req.stay.checkin) rows.push([m.checkin, formatIsoDate(req.stay.checkin, m.locale)]);
  if (req.stay.checkout) rows.push([m.checkout, formatIsoDate(req.stay.checkout, m.locale)]);
  if (req.stay.roomType) rows.push([m.roomType, req.stay.roomType]);
  return rows;
}

/** The card as the guest knows it (masked number, expiry), once the provider reported it. */
export function cardRows(req: GuestRequest, m: Messages): Row[] {
  if (!req.maskedPan) return [];
  const expiry = req.cardExpiry
    ? ` (${m.expires(String(req.cardExpiry.month).padStart(2, '0'), String(req.cardExpiry.year))})`
    : '';
  return [[m.cardLabel, `${req.maskedPan}${expiry}`]];
}

/** When the card was accepted, on the hotel's clock and saying which, under the given label. */
export function settledRow(req: GuestRequest, label: string, m: Messages): Row[] {
  return req.settledAt ? [[label, formatInstantWithZone(req.settledAt, m.locale, req.timezone)]] : [];
}

/**
 * What may happen to a registered card, and when: the daily job places the hold two days
 * before check-in (HOLD_DAYS_BEFORE_CHECKIN), for at most the tenant's hold days, captured only on a no-show.
 * Nothing to say for a plain guarantee of 0.
 */
export function guaranteeNotice(req: GuestRequest, m: Messages): string | undefined {
  if (req.amountCents <= 0) return undefined;
  const from = isIsoDate(req.stay.checkin) ? formatIsoDate(holdDateFor(req.stay.checkin), m.locale) : null;
  const amount = formatMoney(req.amountCents, req.currency, m.locale);
  const until = renewedUntil(req.stay.checkin, req.stay.checkout, req.holdDays);
  const renewed = until ? ` ${m.holdRenewed(formatIsoDate(until, m.locale))}` : '';
  return `${m.imprintAmountLabel}${m.colon}${amount}. ${m.holdNotice(req.hotel.name, from, req.holdDays)}${renewed}`;
}

export function summaryList(rows: readonly Row[], amount?: Row): SafeHtml {
  return html`<dl class="summary">
${rows.map(([label, value]) => html`<div><dt>${label}</dt><dd>${value}</dd></div>\n`)}${amount ? html`<div class="amount"><dt>${amount[0]}</dt><dd>${amount[1]}</dd></div>` : ''}
</dl>`;
}
