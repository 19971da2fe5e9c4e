import { formatMoney, isIsoDate, type Language } from '../domain/index.ts';
import { holdMonthFor } from '../holds/index.ts';
import { html, htmlDocument, type SafeHtml } from '../html/index.ts';
import type { EmbeddedCardForm, GuestCheckout, HostedCardForm } from '../providers/index.ts';
import { GUARANTEE_GUEST_MESSAGES, monthWords } from './guarantee-messages.ts';
import type { GuestRequest, HotelDisplay } from './guest-request.ts';
import { accentStylesheetPath, STYLESHEET_PATH } from './guest-styles.ts';
import type { Outcome } from './guest-view.ts';
import {
  cardRows,
  contactLines,
  guaranteeNotice,
  hotelBanner,
  hotelFooter,
  settledRow,
  stayRows,
  summaryList,
  termsLink,
} from './hotel-blocks.ts';
import { FALLBACK_LANGUAGES, MESSAGES, type Messages, type Notice } from './messages.ts';

interface Layout {
  language: Language;
  title: string;
  /** Shown in the banner and the footer; absent when no request is known (the page is then bilingual). */
  hotel?: HotelDisplay;
  /** The tenant's provider takes no real money: every page says so, above everything else. */
  testMode?: boolean;
  /** Languages of a page for no known request: the banner speaks each of them. */
  bannerLanguages?: readonly Language[];
  /** What the provider's embedded form loads in the head (its script and theme). */
  head?: SafeHtml;
  body: SafeHtml;
}

function layout(p: Layout): string {
  const banner = (p.bannerLanguages ?? [p.language]).map(
    (l, i) => html`${i > 0 ? ' · ' : ''}<span lang="${l}">${MESSAGES[l].securePayment}</span>`,
  );
  return htmlDocument({
    lang: p.language,
    title: p.hotel ? `${p.title} · ${p.hotel.name}` : p.title,
    head: html`<link rel="stylesheet" href="${STYLESHEET_PATH}">
${
  p.hotel?.accentColor
    ? html`<link rel="stylesheet" href="${accentStylesheetPath(p.hotel.accentColor)}">
`
    : ''
}${p.head ?? ''}`,
    body: html`<header class="site">
${p.hotel ? hotelBanner(p.hotel) : ''}
<p class="secure">${banner}</p>
</header>
<main>
${
  p.testMode
    ? html`<p class="test-mode">${MESSAGES[p.language].testMode}</p>
`
    : ''
}${p.body}
</main>
${p.hotel ? hotelFooter(p.hotel, MESSAGES[p.language]) : ''}`,
  }).value;
}

function money(cents: number, req: GuestRequest): string {
  return formatMoney(cents, req.currency, MESSAGES[req.language].locale);
}

/**
 * Who, which booking, how much. Once the card was accepted, the receipt: a paid deposit shows
 * the amount paid, the card and when; a registered imprint, the card and when.
 */
function summary(req: GuestRequest, m: Messages, outcome?: Outcome): SafeHtml {
  const head: [string, string][] = [[m.hotel, req.hotelName], ...stayRows(req, m), [m.reference, req.reference]];
  if (outcome === 'paid') {
    const paid = money(req.amountCapturedCents || req.amountCents, req);
    return summaryList([...head, ...cardRows(req, m), ...settledRow(req, m.paidOnLabel, m)], [m.amountPaidLabel, paid]);
  }
  if (outcome === 'released') {
    return summaryList([...head, ...cardRows(req, m)], [m.imprintAmountLabel, money(req.amountCents, req)]);
  }
  if (outcome === 'registered') {
    return summaryList(
      [...head, ...cardRows(req, m), ...settledRow(req, m.registeredOnLabel, m)],
      [m.imprintAmountLabel, money(req.amountCents, req)],
    );
  }
  const amountLabel = req.requestType === 'IMPRINT' ? m.imprintAmountLabel : m.depositAmountLabel;
  return summaryList(head, [amountLabel, money(req.amountCents, req)]);
}

function cardForm(req: GuestRequest, m: Messages, form: HostedCardForm): SafeHtml {
  const amount = money(req.amountCents, req);
  const submit = req.requestType === 'IMPRINT' ? m.registerCard : m.pay(amount);
  const hidden = Object.entries(form.hiddenFields).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">\n`,
  );
  // No `placeholder`s: they read as filled-in values and vanish on input; labels and a hint do
  // the job. `pattern` only helps the browser point at a typo before the provider does.
  return html`<section class="card" aria-labelledby="card-heading">
<h2 id="card-heading">${m.cardHeading}</h2>
<form method="post" action="${form.action}" class="card-form">
${hidden}<div class="field">
<label for="card_number">${m.cardNumber}</label>
<input id="card_number" name="card_number" type="text" inputmode="numeric" autocomplete="cc-number" required maxlength="23" pattern="[0-9 ]{12,23}" spellcheck="false" autocapitalize="off">
</div>
<fieldset>
<legend>${m.expiry}</legend>
<div class="expiry-row">
<div class="field">
<label for="exp_month">${m.expiryMonth}</label>
<input id="exp_month" name="exp_month" type="text" inputmode="numeric" autocomplete="cc-exp-month" required maxlength="2" pattern="[0-9]{1,2}">
</div>
<div class="field">
<label for="exp_year">${m.expiryYear}</label>
<input id="exp_year" name="exp_year" type="text" inputmode="numeric" autocomplete="cc-exp-year" required maxlength="4" pattern="[0-9]{2,4}">
</div>
</div>
</fieldset>
<div class="field">
<label for="cvv">${m.cvv}</label>
<input id="cvv" name="cvv" type="text" inputmode="numeric" autocomplete="cc-csc" required maxlength="4" pattern="[0-9]{3,4}" aria-describedby="cvv-hint">
<p id="cvv-hint" class="hint">${m.cvvHint}</p>
</div>
<button type="submit">${submit}</button>
</form>
<p class="note">${m.providerNote}</p>
</section>`;
}

/**
 * The provider's script and theme, as its integrations load them: the script carries the
 * browser's public key, where to send the guest back and the language; it draws the form in
 * the `.kr-embedded` element of embeddedForm(). Nothing inline: the page's CSP admits the
 * provider's static host and no inline script.
 */
function embeddedHead(form: EmbeddedCardForm): SafeHtml {
  return html`<script src="${form.scriptUrl}" kr-public-key="${form.publicKey}" kr-post-url-success="${form.successUrl}" kr-language="${form.languageTag}"></script>
<link rel="stylesheet" href="${form.themeStylesheetUrl}">
<script src="${form.themeScriptUrl}"></script>
`;
}

/**
 * Where the provider's script draws its card form (card fields in frames of its own origin:
 * no card number reaches this page). Until it draws, or if it never can (script off, or the
 * provider's host blocked, which a <noscript> would not tell), the place says what to do.
 */
function embeddedForm(m: Messages, form: EmbeddedCardForm): SafeHtml {
  return html`<section class="card" aria-labelledby="card-heading">
<h2 id="card-heading">${m.cardHeading}</h2>
<div class="kr-embedded" kr-form-token="${form.formToken}"><p class="notice">${m.scriptNeeded}</p></div>
<p class="note">${m.providerNote}</p>
</section>`;
}

/**
 * A provider whose card page is its own (Stripe Checkout): a button that asks payreq to open an
 * attempt there (a POST to `action`, answered with a redirect), so that a page view opens none.
 */
export interface ProviderPageButton {
  kind: 'provider-page';
  action: string;
  /** The provider's name as the guest reads it. */
  provider: string;
}

function providerPageForm(m: Messages, form: ProviderPageButton): SafeHtml {
  return html`<section class="card" aria-labelledby="card-heading">
<h2 id="card-heading">${m.cardHeading}</h2>
<p class="note">${m.providerPageNote(form.provider)}</p>
<form method="post" action="${form.action}" class="card-form">
<button type="submit">${m.goToProvider(form.provider)}</button>
</form>
</section>`;
}

/**
 * The payment page proper: who, how much, what will happen, and the provider's card form. Shown
 * again after a failed attempt, why comes first, before what will happen: a guest reads the bank's
 * refusal before being told, again, what giving a card does.
 */
export function paymentPage(
  req: GuestRequest,
  form: Exclude<GuestCheckout, { kind: 'hosted-page' }> | ProviderPageButton,
  opts: { retry: boolean; testMode: boolean },
): string {
  const m = MESSAGES[req.language];
  const amount = money(req.amountCents, req);
  const imprint = req.requestType === 'IMPRINT';
  const explanation = imprint
    ? m.imprintExplanation(req.amountCents > 0 ? amount : null)
    : m.depositExplanation(amount);
  const heading = imprint ? m.imprintHeading : m.depositHeading;
  return layout({
    language: req.language,
    title: heading,
    hotel: req.hotel,
    testMode: opts.testMode,
    ...(form.kind === 'embedded-form' ? { head: embeddedHead(form) } : {}),
    body: html`<div class="card">
<h1>${heading}</h1>
<p>${m.greeting(req.guestName)}</p>
${opts.retry ? html`<p class="notice">${retryNotice(req, m)}</p>` : ''}
${summary(req, m)}
<p class="explain">${explanation}</p>
${termsLink(req.hotel, m)}
</div>
${
  form.kind === 'embedded-form'
    ? embeddedForm(m, form)
    : form.kind === 'provider-page'
      ? providerPageForm(m, form)
      : cardForm(req, m, form)
}`,
  });
}

/** Why the guest sees the form again: a refused guarantee, a card lapsing too soon, or a technical error. */
function retryNotice(req: GuestRequest, m: Messages): string {
  if (req.cardExpiresTooSoon || req.guaranteeFailed) return anotherCardNotice(req, m).text;
  return m.retryNotice;
}

/** The words of an ERROR that asks for another card (the caller knows it is one). */
function anotherCardNotice(req: GuestRequest, m: Messages): Notice {
  const g = GUARANTEE_GUEST_MESSAGES[req.language];
  const checkin = req.stay.checkin;
  if (req.cardExpiresTooSoon && checkin && isIsoDate(checkin)) {
    const today = new Date().toISOString().slice(0, 10);
    return g.cardExpiresTooSoon(monthWords(holdMonthFor(checkin, today), m.locale));
  }
  return g.guaranteeFailed(req.maskedPan || null);
}

const SUCCESS: ReadonlySet<Outcome> = new Set<Outcome>(['registered', 'paid']);
const PROBLEM: ReadonlySet<Outcome> = new Set<Outcome>([
  'refused',
  'givenBack',
  'error',
  'expired',
  'guaranteeFailed',
  'cardExpiresTooSoon',
]);
/** Outcomes whose way forward is the card form again, on the same link. */
const RETRY: ReadonlySet<Outcome | 'unavailable'> = new Set([
  'error',
  'unavailable',
  'guaranteeFailed',
  'cardExpiresTooSoon',
]);

function outcomeNotice(req: GuestRequest, outcome: Outcome, m: Messages): Notice {
  switch (outcome) {
    case 'paid':
      return m.paid(money(req.amountCapturedCents || req.amountCents, req));
    case 'charged':
      return m.charged(money(req.amountCapturedCents, req));
    case 'refunded':
      return m.refunded(money(req.amountRefundedCents || req.amountCapturedCents, req));
    case 'released':
      return m.released(money(req.amountCents, req));
    case 'guaranteeFailed':
    case 'cardExpiresTooSoon':
      return anotherCardNotice(req, m);
    default:
      return m[outcome];
  }
}

/** The outcome of a known request, in its language; ERROR and "unavailable" offer a retry link. */
export function outcomePage(req: GuestRequest, outcome: Outcome | 'unavailable', opts: { testMode: boolean }): string {
  const m = MESSAGES[req.language];
  const notice = outcome === 'unavailable' ? m.unavailable : outcomeNotice(req, outcome, m);
  const payUrl = `/payment/${req.id}/`;
  const resultUrl = `${payUrl}result/`;
  const tone =
    outcome !== 'unavailable' && SUCCESS.has(outcome)
      ? 'success'
      : PROBLEM.has(outcome as Outcome)
        ? 'problem'
        : 'info';
  let action: SafeHtml | '' = '';
  if (RETRY.has(outcome)) action = html`<p><a class="button" href="${payUrl}">${m.tryAgain}</a></p>`;
  if (outcome === 'processing') action = html`<p><a href="${resultUrl}">${m.refresh}</a></p>`;
  // A refusal is final for this request: the guest's way forward is the hotel, so its contact is right here.
  if (outcome === 'refused')
    action = html`<p>${m.noRetry}</p>
${contactLines(req.hotel, m)}`;
  const guarantee = outcome === 'registered' ? guaranteeNotice(req, m) : undefined;
  return layout({
    language: req.language,
    title: notice.title,
    hotel: req.hotel,
    testMode: opts.testMode,
    body: html`<div class="card outcome-${tone}">
<h1>${notice.title}</h1>
<p>${m.greeting(req.guestName)}</p>
<p>${notice.text}</p>
${guarantee ? html`<p class="explain">${guarantee}</p>` : ''}
${action}
${summary(req, m, outcome === 'unavailable' ? undefined : outcome)}
</div>`,
  });
}

/**
 * A page for no known request (unknown link, rate limit before a lookup): every fallback
 * language, each section marked with its own `lang` so a screen reader switches voice.
 */
export function bilingualPage(pick: (m: Messages) => Notice, language?: Language): string {
  const languages = language ? [language] : FALLBACK_LANGUAGES;
  const first = languages[0] ?? 'fr';
  const sections = languages.map((l, i) => {
    const n = pick(MESSAGES[l]);
    // One h1 per page: the first language's title; the others are its translations.
    const heading = i === 0 ? html`<h1>${n.title}</h1>` : html`<h2>${n.title}</h2>`;
    return html`<section lang="${l}" class="card">
${heading}
<p>${n.text}</p>
</section>\n`;
  });
  return layout({
    language: first,
    title: languages.map((l) => pick(MESSAGES[l]).title).join(' / '),
    bannerLanguages: languages,
    body: html`${sections}`,
  });
}
