import { type DeclineReason, formatMoney, LANGUAGES, type Language } from '../domain/index.ts';
import { html } from '../html/index.ts';
import { formatIsoDate } from '../i18n/index.ts';
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
    detailsText(lines),
    '',
    `${g.guestAction}:`,
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
  /** Why the bank refused, in the closed list (worded in each language of the e-mail). */
  reason: DeclineReason | null;
  /** The provider's code for it (or, without one, its own message): a detail after the words. */
  code: string | null;
  failures: number;
  /** The guest got the e-mail asking for another card for this refusal. */
  guestAsked: boolean;
}

/**
 * The hotel's alert, to its contact address: which booking lost its guarantee, why, whether the
 * guest was asked, and the request in the back office. In the three languages, each marked.
 */
export function renderGuaranteeFailedHotel(
  req: MailRequest & { guest_email: string },
  hotelName: string,
  publicBaseUrl: string,
  facts: HotelFacts,
): RenderedMail {
  const hotel = oneLine(hotelName);
  const url = `${publicBaseUrl}/control/requests/${encodeURIComponent(req.id)}`;
  const guest = `${guestName(req)} <${oneLine(req.guest_email)}>`;
  const sections = LANGUAGES.map((lang: Language) => {
    const m = MAIL_MESSAGES[lang];
    const g = GUARANTEE_MAIL_MESSAGES[lang];
    const amount = formatMoney(req.amount, req.currency, m.locale);
    const lines: [string, string][] = [
      ...reservationLines(req, m),
      ...cardLines(req, m),
      [m.imprintAmountLabel, amount],
      ...(facts.reason
        ? [
            [g.reasonLabel, `${g.declineReasons[facts.reason]}${facts.code ? ` (${oneLine(facts.code)})` : ''}`] as [
              string,
              string,
            ],
          ]
        : []),
      [g.failuresLabel, String(facts.failures)],
    ];
    const next = facts.guestAsked ? g.guestAsked : g.guestNotAsked;
    return { lang, g, intro: g.hotelIntro(amount, guest), next, lines };
  });
  const text = `${sections
    .map((s) => [s.intro, s.next, '', detailsText(s.lines), `${s.g.hotelAction}: ${url}`].join('\n'))
    .join('\n\n---\n\n')}\n`;
  const body = html`${sections.map(
    (s) => html`<div lang="${s.lang}" style="margin:0 0 24px">
<p>${s.intro}</p>
<p>${s.next}</p>
${detailsHtml(s.lines)}
<p><a href="${url}">${s.g.hotelAction}</a></p>
</div>`,
  )}`;
  const subject = sections.map((s) => s.g.hotelSubject(req.reference)).join(' / ');
  return { subject: oneLine(`${hotel}: ${subject}`), text, html: layout(hotel, LANGUAGES[0], body) };
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
  const reason = `${g.declineReasons[facts.reason]}${facts.code ? ` (${oneLine(facts.code)})` : ''}`;
  const intro = g.declinedIntro(amount, guest, reason);
  const next = g.declinedNext(facts.finalOn ? formatIsoDate(facts.finalOn, m.locale) : null);
  const lines: [string, string][] = [...reservationLines(req, m), ...cardLines(req, m), [m.imprintAmountLabel, amount]];
  const text = [intro, next, '', detailsText(lines), `${g.hotelAction}: ${url}`, ''].join('\n');
  const body = html`<p>${intro}</p>
<p>${next}</p>
${detailsHtml(lines)}
<p><a href="${url}">${g.hotelAction}</a></p>`;
  return { subject: oneLine(`${hotel}: ${g.declinedSubject(req.reference)}`), text, html: layout(hotel, lang, body) };
}
