import type { StripeObject } from './fake-store.ts';

/**
 * The fake's Checkout page (INVENTED: Stripe's own page is a script-driven application): a
 * plain HTML form the test fills and submits, as a guest's browser would post Stripe's. It says
 * which session, how much and what it does (pay or save the card), and shows a decline beside
 * the form, as Checkout asks for another card.
 */
export function checkoutPage(session: StripeObject, error?: string): string {
  const amount = session.amount_total as number | null;
  const what =
    session.mode === 'setup'
      ? 'Save your card for later payments'
      : `Pay ${((amount ?? 0) / 100).toFixed(2)} ${String(session.currency).toUpperCase()}`;
  const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><html lang="${esc(String(session.locale ?? 'en'))}"><head><meta charset="utf-8"><title>Checkout (fake)</title></head>
<body><main><h1>${esc(what)}</h1>
${error ? `<p role="alert" class="error">${esc(error)}</p>` : ''}
<form method="post" action="/pay/${esc(session.id)}">
<label for="card_number">Card number</label><input id="card_number" name="card_number" autocomplete="cc-number" required>
<label for="exp_month">MM</label><input id="exp_month" name="exp_month" required>
<label for="exp_year">YY</label><input id="exp_year" name="exp_year" required>
<label for="cvc">CVC</label><input id="cvc" name="cvc" required>
<button type="submit">${session.mode === 'setup' ? 'Save card' : 'Pay'}</button>
</form>
${session.cancel_url ? `<p><a href="${esc(String(session.cancel_url))}">Back</a></p>` : ''}
</main></body></html>`;
}

/** A page for a session that is over. */
export function closedPage(session: StripeObject): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Checkout (fake)</title></head>
<body><main><h1>This session is ${String(session.status)}</h1></main></body></html>`;
}
