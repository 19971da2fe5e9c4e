import type { EmailSubjectRow } from '../db/index.ts';
import { formatMoney, isMoneyReason, type Language } from '../domain/index.ts';
import { holdDateFor, renewedUntil } from '../holds/index.ts';
import { html, type SafeHtml } from '../html/index.ts';
import { colon, formatInstantWithZone, formatIsoDate, isIsoDate, labelled } from '../i18n/index.ts';
import { oneLine } from './escape.ts';
import { MAIL_MESSAGES, type MailMessages } from './mail-messages.ts';

/**
 * What a guest e-mail is made from: the request as stored (money in minor units), with
 * `hold_days` as long as a hold may last at most (the tenant's setting, or less where the
 * provider lapses it sooner).
 */
export type MailRequest = Omit<
  EmailSubjectRow,
  'guest_email' | 'tenant_name' | 'sender_email' | 'account_provider' | 'contact_email' | 'status' | 'link_expires_at'
>;

/** A reminder of the link (docs/e-mail.md, "Reminders"): its number and until when the link can be paid. */
export interface ReminderOf {
  number: number;
  linkExpiresAt: Date;
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

/** The guest payment form of a request. */
export function paymentUrl(publicBaseUrl: string, id: string): string {
  return `${publicBaseUrl}/payment/${encodeURIComponent(id)}/`;
}

/** The card as the guest knows it: masked number and expiry, when the provider gave them. */
export function cardLines(req: MailRequest, m: MailMessages): [string, string][] {
  if (!req.masked_pan) return [];
  const expiry =
    req.card_expiry_month && req.card_expiry_year
      ? ` (${m.expires(String(req.card_expiry_month).padStart(2, '0'), String(req.card_expiry_year))})`
      : '';
  return [[m.cardLabel, `${oneLine(req.masked_pan)}${expiry}`]];
}

/** checkin, checkout and room_type when the PMS sent them; reservation_data is free-form. */
export function reservationLines(req: MailRequest, m: MailMessages): [string, string][] {
  const data = req.reservation_data ?? {};
  const value = (key: string): string | undefined => {
    const v = data[key];
    return typeof v === 'string' || typeof v === 'number' ? oneLine(String(v)) || undefined : undefined;
  };
  const lines: [string, string][] = [[m.reference, req.reference]];
  const checkin = value('checkin');
  const checkout = value('checkout');
  const room = value('room_type');
  if (checkin) lines.push([m.checkin, formatIsoDate(checkin, m.locale)]);
  if (checkout) lines.push([m.checkout, formatIsoDate(checkout, m.locale)]);
  if (room) lines.push([m.roomType, room]);
  return lines;
}

export function guestName(req: MailRequest): string {
  return oneLine(`${req.guest_first_name} ${req.guest_last_name}`);
}

export function layout(hotel: string, lang: Language, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="${lang}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${hotel}</title></head>
<body style="margin:0;padding:24px;background:#f4f4f5;font-family:Arial,Helvetica,sans-serif;color:#18181b">
<main style="display:block;max-width:560px;margin:0 auto;background:#ffffff;border-radius:8px;padding:24px">
<h1 style="font-size:18px;margin:0 0 16px">${hotel}</h1>
${body}
</main>
</body>
</html>`.value;
}

export function detailsHtml(lines: [string, string][]): SafeHtml {
  return html`<table role="presentation" style="border-collapse:collapse;margin:16px 0">${lines.map(
    ([label, value]) =>
      html`<tr><td style="padding:4px 16px 4px 0;color:#52525b">${label}</td><td style="padding:4px 0">${value}</td></tr>`,
  )}</table>`;
}

/** The details as text lines, "label: value" with the language's colon (French: "Montant : …"). */
export function detailsText(lines: [string, string][], language: string): string {
  return lines.map(([label, value]) => labelled(language, label, value)).join('\n');
}

export function signatureHtml(m: MailMessages, hotel: string): SafeHtml {
  const [first, ...rest] = m.signature(hotel).split('\n');
  return html`<p>${first}${rest.map((line) => html`<br>${line}`)}</p>`;
}

/**
 * The payment link e-mail, sent when the tenant's `confirmation_email` is true; with `reminder`,
 * the same link as a reminder (its own subject and opening, and until when it can be paid).
 */
export function renderPaymentLink(
  req: MailRequest,
  hotelName: string,
  publicBaseUrl: string,
  reminder?: ReminderOf,
): RenderedMail {
  const m = MAIL_MESSAGES[req.language];
  const hotel = oneLine(hotelName);
  const amount = formatMoney(req.amount, req.currency, m.locale);
  const imprint = req.request_type === 'IMPRINT';
  const explanation = imprint ? m.imprintExplanation(req.amount > 0 ? amount : null) : m.depositExplanation(amount);
  const amountLabel = imprint ? m.imprintAmountLabel : m.depositAmountLabel;
  const url = paymentUrl(publicBaseUrl, req.id);
  const lines: [string, string][] = [[amountLabel, amount], ...reservationLines(req, m)];
  const intro = reminder ? m.reminderIntro(hotel) : m.linkIntro(hotel);
  const until = reminder
    ? m.linkValidUntil(formatInstantWithZone(reminder.linkExpiresAt, m.locale, req.timezone))
    : null;
  const text = [
    m.greeting(guestName(req)),
    '',
    intro,
    explanation,
    ...(until ? [until] : []),
    '',
    detailsText(lines, req.language),
    '',
    `${m.linkAction}${colon(req.language)}`,
    url,
    '',
    m.signature(hotel),
    '',
  ].join('\n');
  const body = html`<p>${m.greeting(guestName(req))}</p>
<p>${intro}</p>
<p>${explanation}${until ? html`<br>${until}` : ''}</p>
${detailsHtml(lines)}
<p style="margin:24px 0"><a href="${url}" style="display:inline-block;background:#1d4ed8;color:#ffffff;padding:12px 20px;border-radius:6px;text-decoration:none">${m.linkAction}</a></p>
<p style="font-size:13px;color:#52525b">${m.linkFallback}<br><a href="${url}">${url}</a></p>
${signatureHtml(m, hotel)}`;
  const subject = reminder ? m.reminderSubject(hotel, req.request_type) : m.linkSubject(hotel, req.request_type);
  return { subject: oneLine(subject), text, html: layout(hotel, req.language, body) };
}

/** The confirmation after a DEPOSIT was captured. */
export function renderDepositConfirmation(req: MailRequest, hotelName: string): RenderedMail {
  const m = MAIL_MESSAGES[req.language];
  const hotel = oneLine(hotelName);
  const captured = formatMoney(req.amount_captured > 0 ? req.amount_captured : req.amount, req.currency, m.locale);
  const lines: [string, string][] = [
    [m.capturedLabel, captured],
    ...cardLines(req, m),
    [m.paidOnLabel, formatInstantWithZone(req.updated_at, m.locale, req.timezone)],
    ...reservationLines(req, m),
  ];
  const text = [
    m.greeting(guestName(req)),
    '',
    m.confirmationIntro(captured, hotel),
    '',
    detailsText(lines, req.language),
    '',
    m.signature(hotel),
    '',
  ].join('\n');
  const body = html`<p>${m.greeting(guestName(req))}</p>
<p>${m.confirmationIntro(captured, hotel)}</p>
${detailsHtml(lines)}
${signatureHtml(m, hotel)}`;
  return { subject: oneLine(m.confirmationSubject(hotel)), text, html: layout(hotel, req.language, body) };
}

/** An IMPRINT's card is registered: what was registered, the most that may be taken, and when. */
export function renderCardRegistered(req: MailRequest, hotelName: string): RenderedMail {
  const m = MAIL_MESSAGES[req.language];
  const hotel = oneLine(hotelName);
  const amount = formatMoney(req.amount, req.currency, m.locale);
  const checkin = req.reservation_data?.checkin;
  const holdFrom = isIsoDate(checkin) ? formatIsoDate(holdDateFor(checkin), m.locale) : null;
  const lines: [string, string][] = [...cardLines(req, m), [m.imprintAmountLabel, amount], ...reservationLines(req, m)];
  const checkout = req.reservation_data?.checkout;
  const until = renewedUntil(
    isIsoDate(checkin) ? checkin : undefined,
    isIsoDate(checkout) ? checkout : undefined,
    req.hold_days,
  );
  const notice = `${m.holdNotice(hotel, holdFrom, req.hold_days)}${until ? ` ${m.holdRenewed(formatIsoDate(until, m.locale))}` : ''}`;
  const text = [
    m.greeting(guestName(req)),
    '',
    m.cardRegisteredIntro(hotel),
    '',
    detailsText(lines, req.language),
    '',
    notice,
    '',
    m.signature(hotel),
    '',
  ].join('\n');
  const body = html`<p>${m.greeting(guestName(req))}</p>
<p>${m.cardRegisteredIntro(hotel)}</p>
${detailsHtml(lines)}
<p>${notice}</p>
${signatureHtml(m, hotel)}`;
  return { subject: oneLine(m.cardRegisteredSubject(hotel)), text, html: layout(hotel, req.language, body) };
}

/**
 * Why the hotel charged the card: the reason it gave with the capture, in the guest's words, and
 * its note. Nothing when it gave neither (a capture from before reasons were kept).
 */
function captureWhy(req: MailRequest, m: MailMessages): [string, string][] {
  const reason = isMoneyReason(req.capture_reason) ? m.moveReasons[req.capture_reason] : null;
  const note = req.capture_note?.trim() ? oneLine(req.capture_note) : null;
  return [
    ...(reason ? [[m.captureReasonLabel, reason] as [string, string]] : []),
    ...(note ? [[m.captureNoteLabel, note] as [string, string]] : []),
  ];
}

/** What moved on the guest's card after the payment, each told once. */
export type MoneyNotice = 'capture_notice' | 'release_notice' | 'refund_notice';

/**
 * A capture of a registered card (a no-show), a released hold, or one refund: what moved, on
 * which card, for which stay. `movedCents` is the ledger row's amount (a refund's own, not the
 * total); a release moves nothing (its row's amount is 0) and names the amount that was held.
 */
export function renderMoneyNotice(
  kind: MoneyNotice,
  req: MailRequest,
  hotelName: string,
  movedCents: number | null,
): RenderedMail {
  const m = MAIL_MESSAGES[req.language];
  const hotel = oneLine(hotelName);
  const cents = kind === 'release_notice' ? req.amount : (movedCents ?? req.amount);
  const moved = formatMoney(cents, req.currency, m.locale);
  const wording = {
    capture_notice: { subject: m.captureSubject(hotel), intro: m.captureIntro(moved, hotel), label: m.capturedLabel },
    release_notice: { subject: m.releaseSubject(hotel), intro: m.releaseIntro(moved, hotel), label: null },
    refund_notice: { subject: m.refundSubject(hotel), intro: m.refundIntro(moved, hotel), label: m.refundedLabel },
  }[kind];
  const lines: [string, string][] = [
    ...(wording.label ? [[wording.label, moved] as [string, string]] : []),
    ...(kind === 'capture_notice' ? captureWhy(req, m) : []),
    ...cardLines(req, m),
    ...reservationLines(req, m),
  ];
  const after = kind === 'refund_notice' ? [m.refundDelay] : [];
  const text = [
    m.greeting(guestName(req)),
    '',
    wording.intro,
    ...after,
    '',
    detailsText(lines, req.language),
    '',
    m.signature(hotel),
    '',
  ].join('\n');
  const body = html`<p>${m.greeting(guestName(req))}</p>
<p>${wording.intro}${after.map((line) => html`<br>${line}`)}</p>
${detailsHtml(lines)}
${signatureHtml(m, hotel)}`;
  return { subject: oneLine(wording.subject), text, html: layout(hotel, req.language, body) };
}
