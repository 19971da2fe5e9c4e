import { type Currency, formatMoney } from '../../domain/index.ts';
import { type HtmlValue, html, htmlDocument, SafeHtml } from '../../html/index.ts';
import type { CardInput, CardProblem } from './card-form-check.ts';
import { CHECKOUT_FIELDS, type CheckoutFields } from './checkout-signature.ts';
import { type SandboxMessages, sandboxMessages } from './sandbox-messages.ts';
import { TEST_CARDS } from './test-cards.ts';

/**
 * The sandbox's own pages, in the request's language: plain HTML that works without
 * JavaScript, labelled inputs, and a TEST MODE banner nobody can miss, so no one ever
 * mistakes it for a real payment page.
 */
const STYLE =
  new SafeHtml(`body{font-family:system-ui,sans-serif;margin:0;color:#1a1a1a;background:#fff;line-height:1.5}
main{max-width:32rem;margin:0 auto;padding:1rem}
.test-mode{background:#7a2e00;color:#fff;font-weight:700;text-align:center;padding:.5rem;margin:0}
label{display:block;margin-top:.75rem;font-weight:600}
input{font:inherit;padding:.5rem;border:1px solid #555;border-radius:4px;width:100%;box-sizing:border-box}
input[aria-invalid=true]{border:2px solid #b00020}
.row{display:flex;gap:.75rem}.row>div{flex:1}
button{font:inherit;margin-top:1rem;padding:.6rem 1.2rem;background:#0b4f8a;color:#fff;border:0;border-radius:4px}
a:focus,button:focus,input:focus{outline:3px solid #f5a623;outline-offset:2px}
.error{border-left:4px solid #b00020;background:#fdecee;padding:.25rem .75rem;margin:.25rem 0}
table{border-collapse:collapse;margin-top:.5rem}td,th{border:1px solid #999;padding:.25rem .5rem;text-align:left}`);

function page(m: SandboxMessages, title: string, body: SafeHtml): string {
  return htmlDocument({
    lang: m.lang,
    title: `${m.testMode} ${title}`,
    head: html`<style>${STYLE}</style>
`,
    body: html`<header><p class="test-mode" role="note">${m.testMode}</p></header>
<main>
<h1>${title}</h1>
${body}
</main>`,
  }).value;
}

function testCards(m: SandboxMessages): SafeHtml {
  const rows: [string, string][] = [
    [TEST_CARDS.accepted, m.accepted],
    [TEST_CARDS.mastercard, m.mastercard],
    [TEST_CARDS.refused, m.refused],
    [TEST_CARDS.technicalError, m.technicalError],
    [TEST_CARDS.blockedAfterRegistration, m.blockedAfterRegistration],
    [TEST_CARDS.softDeclineAfterRegistration, m.softDecline],
    [TEST_CARDS.stolenAfterRegistration, m.stolen],
    [TEST_CARDS.renewalRefused, m.renewalRefused],
    [m.anyOther, m.accepted],
  ];
  return html`<h2>${m.testCards}</h2>
<table>
<thead><tr><th scope="col">${m.cardColumn}</th><th scope="col">${m.outcomeColumn}</th></tr></thead>
<tbody>
${rows.map(([card, outcome]) => html`<tr><td data-label="${m.cardColumn}">${card}</td><td data-label="${m.outcomeColumn}">${outcome}</td></tr>`)}
</tbody>
</table>
<p>${m.testCardsHint}</p>`;
}

function formatAmount(m: SandboxMessages, cents: string, currency: string): string {
  const n = Number(cents);
  if (!Number.isInteger(n) || !/^[A-Z]{3}$/.test(currency)) return `${cents} ${currency}`;
  return formatMoney(n, currency as Currency, m.locale);
}

/** The guest's mistake, to show beside the inputs it concerns; what they typed, to keep. */
export interface CardMistake {
  problem: CardProblem;
  inputs: CardInput[];
  /** The expiry as typed: kept on the page. The card number and CVV never are. */
  entered: { exp_month: string; exp_year: string };
}

/**
 * The card page shown again with the guest's mistake: the message sits beside the first input
 * it concerns and every such input points at it (aria-describedby), the expiry typed is kept,
 * the card number and CVV are typed again (a provider never sends a card number back to a
 * page). The signed fields go back unchanged: the same attempt, the same expiry.
 */
export function cardPage(action: string, fields: CheckoutFields, signature: string, mistake: CardMistake): string {
  const m = sandboxMessages(fields.language);
  const hidden = [...CHECKOUT_FIELDS.map((f) => [f, fields[f]] as const), ['signature', signature] as const].map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">\n`,
  );
  const what =
    fields.request_type === 'IMPRINT' ? m.imprintWhat : m.depositWhat(formatAmount(m, fields.amount, fields.currency));
  const errorId = 'card-error';
  const first = mistake.inputs[0];
  const input = (name: CardInput, label: string, attrs: HtmlValue) => {
    const wrong = mistake.inputs.includes(name);
    const value = name === 'exp_month' || name === 'exp_year' ? mistake.entered[name] : '';
    return html`<label for="${name}">${label}</label>
${name === first ? html`<p class="error" role="alert" id="${errorId}">${m.problems[mistake.problem]}</p>\n` : ''}<input id="${name}" name="${name}" inputmode="numeric" ${attrs} value="${value}" required${wrong ? html` aria-invalid="true" aria-describedby="${errorId}"` : ''}>`;
  };
  return page(
    m,
    m.cardTitle,
    html`<p>${m.merchant} <strong>${fields.merchant_name}</strong></p>
<p>${m.reference} ${fields.reference}. ${what}</p>
<form method="post" action="${action}">
${hidden}${input('card_number', m.cardNumber, html`autocomplete="cc-number"`)}
<div class="row">
<div>${input('exp_month', m.expiryMonth, html`autocomplete="cc-exp-month" maxlength="2"`)}</div>
<div>${input('exp_year', m.expiryYear, html`autocomplete="cc-exp-year" maxlength="4"`)}</div>
</div>
${input('cvv', m.cvv, html`autocomplete="cc-csc" maxlength="4"`)}
<button type="submit">${fields.request_type === 'IMPRINT' ? m.register : m.pay}</button>
</form>
${testCards(m)}`,
  );
}

/**
 * A form that was altered or is incomplete: nothing was charged, and the guest is told why.
 * Its language is only a hint here (the form is not to be trusted), so it is shown in English
 * unless the form says fr or de.
 */
export function badRequestPage(language: string | undefined): string {
  const m = sandboxMessages(language);
  return page(m, m.invalidTitle, html`<p role="alert">${m.invalidText}</p>`);
}

/** A form submitted after its expiry: nothing was charged; the guest is sent back to the hotel. */
export function expiredPage(fields: CheckoutFields): string {
  const m = sandboxMessages(fields.language);
  return page(
    m,
    m.expiredTitle,
    html`<p role="alert">${m.expiredText}</p>
<p><a href="${fields.return_url}">${m.backTo(fields.merchant_name)}</a></p>`,
  );
}

/** Headers of every sandbox page: never cached, never framed, posting only to the sandbox. */
export function securityHeaders(formOrigin: string): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': `default-src 'none'; style-src 'unsafe-inline'; form-action ${formOrigin}; frame-ancestors 'none'; base-uri 'none'`,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
  };
}
