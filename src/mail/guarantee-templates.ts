import { type DeclineReason, formatMoney, type Language } from '../domain/index.ts';
import { html } from '../html/index.ts';
import { colon, formatIsoDate, labelled } from '../i18n/index.ts';
import { oneLine } from './escape.ts';
import { GUARANTEE_MAIL_MESSAGES } from './guarantee-messages.ts';
import { MAIL_MESSAGES } from './mail-messages.ts';
import {
  cardLines,
  detailsHtml,
  detailsText,
  guestName,
  layout,
  type MailRequest,
  paymentUrl,
  type RenderedMail,
  reservationLines,
  signatureHtml,
} from './templates.ts';

/**
 * The bank refused the guarantee's hold: the guest is asked for another card, through the
 * same link (the request is in ERROR, which takes a new card), in the request's language.
 */
export function renderGuaranteeFailedGuest(
  req: MailRequest,
  hotelName: string,
  publicBaseUrl: string,
  reason: DeclineReason | null = null,
): RenderedMail {
  const m = MAIL_MESSAGES[req.language];
  const g = GUARANTEE_MAIL_MESSAGES[req.language];
  const ask = reason === 'authentication_required' ? g.guestAskAuthenticate : g.guestAsk;
  const hotel = oneLine(hotelName);
  const amount = formatMoney(req.amount, req.currency, m.locale);
  const url = paymentUrl(publicBaseUrl, req.id);
  const lines: [string, string][] = [...cardLines(req, m), [m.imprintAmountLabel, amount], ...reservationLines(req, m)];
  const text = [
    m.greeting(guestName(req)),
    '',
    g.guestIntro(amount, hotel),
    ask,
    '',
    detailsText(lines, req.language),
    '',
    `${g.guestAction}${colon(req.language)}`,
    url,
    '',
    m.signature(hotel),
    '',
  ].join('\n');
  const body = html`<p>${m.greeting(guestName(req))}</p>
<p>${g.guestIntro(amount, hotel)}</p>
<p>${ask}</p>
${detailsHtml(lines)}
<p style="margin:24px 0"><a href="${url}" style="display:inline-block;background:#1d4ed8;color:#ffffff;padding:12px 20px;border-radius:6px;text-decoration:none">${g.guestAction}</a></p>
<p style="font-size:13px;color:#52525b">${m.linkFallback}<br><a href="${url}">${url}</a></p>
${signatureHtml(m, hotel)}`;
  return { subject: oneLine(g.guestSubject(hotel)), text, html: layout(hotel, req.language, body) };
}

export interface HotelFacts {
  /** Why the bank refused, in the closed list (in words, in the hotel's language). */
  reason: DeclineReason | null;
  /**
   * The provider's code for it (or, without one, its own message). Staff read the words; the code
   * follows them only when the words are "other", where it is all there is to go on.
   */
  code: string | null;
  failures: number;
  /** The guest got the e-mail asking for another card for this refusal. */
  guestAsked: boolean;
}

/** The bank's refusal in words; the provider's code only after "other", which says nothing more. */
function refusalWords(words: Record<DeclineReason, string>, reason: DeclineReason, code: string | null): string {
  return `${words[reason]}${reason === 'other' && code ? ` (${oneLine(code)})` : ''}`;
}

/**
 * The hotel's alert, to its contact address: which booking lost its guarantee, why, whether the
 * guest was asked, and the request in the back office. In the hotel's language (its digest's),
 * as every e-mail to the hotel.
 */
export function renderGuaranteeFailedHotel(
  req: MailRequest & { guest_email: string; hotel_language: Language },
  hotelName: string,
  publicBaseUrl: string,
  facts: HotelFacts,
): RenderedMail {
  const hotel = oneLine(hotelName);
  const url = `${publicBaseUrl}/control/requests/${encodeURIComponent(req.id)}`;
  const guest = `${guestName(req)} <${oneLine(req.guest_email)}>`;
  const lang = req.hotel_language;
  const m = MAIL_MESSAGES[lang];
  const g = GUARANTEE_MAIL_MESSAGES[lang];
  const amount = formatMoney(req.amount, req.currency, m.locale);
  const lines: [string, string][] = [
    ...reservationLines(req, m),
    ...cardLines(req, m),
    [m.imprintAmountLabel, amount],
    ...(facts.reason
      ? [[g.reasonLabel, refusalWords(g.declineReasons, facts.reason, facts.code)] as [string, string]]
      : []),
    [g.failuresLabel, String(facts.failures)],
  ];
  const intro = g.hotelIntro(amount, guest);
  const next = facts.guestAsked ? g.guestAsked : g.guestNotAsked;
  const text = [intro, next, '', detailsText(lines, lang), labelled(lang, g.hotelAction, url), ''].join('\n');
  const body = html`<p>${intro}</p>
<p>${next}</p>
${detailsHtml(lines)}
<p><a href="${url}">${g.hotelAction}</a></p>`;
  return {
    subject: oneLine(labelled(lang, hotel, g.hotelSubject(req.reference))),
    text,
    html: layout(hotel, lang, body),
  };
}

/**
 * A hold the bank declined softly before the check-in day (insufficient funds, an issuer that
 * did not answer): the card stays the guarantee and the daily job tries again, so the hotel is
 * told once per request, in its own language, that it may not hold, and when it becomes final.
 */
export function renderHoldDeclinedHotel(
  req: MailRequest & { guest_email: string; hotel_language: Language },
  hotelName: string,
  publicBaseUrl: string,
  facts: { reason: DeclineReason; code: string | null; finalOn: string | null },
): RenderedMail {
  const lang = req.hotel_language;
  const m = MAIL_MESSAGES[lang];
  const g = GUARANTEE_MAIL_MESSAGES[lang];
  const hotel = oneLine(hotelName);
  const url = `${publicBaseUrl}/control/requests/${encodeURIComponent(req.id)}`;
  const guest = `${guestName(req)} <${oneLine(req.guest_email)}>`;
  const amount = formatMoney(req.amount, req.currency, m.locale);
  const reason = refusalWords(g.declineReasons, facts.reason, facts.code);
  const intro = g.declinedIntro(amount, guest, reason);
  const next = g.declinedNext(facts.finalOn ? formatIsoDate(facts.finalOn, m.locale) : null);
  const lines: [string, string][] = [...reservationLines(req, m), ...cardLines(req, m), [m.imprintAmountLabel, amount]];
  const text = [intro, next, '', detailsText(lines, lang), labelled(lang, g.hotelAction, url), ''].join('\n');
  const body = html`<p>${intro}</p>
<p>${next}</p>
${detailsHtml(lines)}
<p><a href="${url}">${g.hotelAction}</a></p>`;
  return {
    subject: oneLine(labelled(lang, hotel, g.declinedSubject(req.reference))),
    text,
    html: layout(hotel, lang, body),
  };
}
