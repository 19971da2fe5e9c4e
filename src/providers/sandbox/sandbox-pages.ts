import { escapeHtml } from '../../html/index.js';
import { CHECKOUT_FIELDS, type CheckoutFields } from './checkout-signature.js';
import { TEST_CARDS } from './test-cards.js';

/**
 * The sandbox's own pages: plain HTML that works without JavaScript, labelled inputs, and a
 * TEST MODE banner nobody can miss, so no one ever mistakes it for a real payment page.
 */
const STYLE = `body{font-family:system-ui,sans-serif;margin:0;color:#1a1a1a;background:#fff;line-height:1.5}
main{max-width:32rem;margin:0 auto;padding:1rem}
.test-mode{background:#7a2e00;color:#fff;font-weight:700;text-align:center;padding:.5rem;margin:0}
label{display:block;margin-top:.75rem;font-weight:600}
input{font:inherit;padding:.5rem;border:1px solid #555;border-radius:4px;width:100%;box-sizing:border-box}
.row{display:flex;gap:.75rem}.row>div{flex:1}
button{font:inherit;margin-top:1rem;padding:.6rem 1.2rem;background:#0b4f8a;color:#fff;border:0;border-radius:4px}
button:focus,input:focus{outline:3px solid #f5a623;outline-offset:2px}
.error{border-left:4px solid #b00020;background:#fdecee;padding:.5rem .75rem}
table{border-collapse:collapse;margin-top:.5rem}td,th{border:1px solid #999;padding:.25rem .5rem;text-align:left}`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>TEST MODE: ${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<p class="test-mode" role="note">TEST MODE: sandbox payment provider. No real card is charged.</p>
<main>
<h1>${escapeHtml(title)}</h1>
${body}
</main>
</body>
</html>
`;
}

function testCards(): string {
  return `<h2>Test cards</h2>
<table>
<thead><tr><th scope="col">Card number</th><th scope="col">Outcome</th></tr></thead>
<tbody>
<tr><td>${TEST_CARDS.accepted}</td><td>accepted</td></tr>
<tr><td>${TEST_CARDS.refused}</td><td>refused by the bank</td></tr>
<tr><td>${TEST_CARDS.technicalError}</td><td>technical error</td></tr>
<tr><td>any other valid card number</td><td>accepted</td></tr>
</tbody>
</table>
<p>Use any future expiry date and any 3-digit security code.</p>`;
}

function formatAmount(cents: string, currency: string): string {
  const n = Number(cents);
  return Number.isInteger(n) ? `${(n / 100).toFixed(2)} ${currency}` : `${cents} ${currency}`;
}

/** The card page, shown again with the guest's mistake; the signed fields go back unchanged. */
export function cardPage(action: string, fields: CheckoutFields, signature: string, error?: string): string {
  const hidden = [...CHECKOUT_FIELDS.map((f) => [f, fields[f]] as const), ['signature', signature] as const]
    .map(([name, value]) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`)
    .join('\n');
  const what =
    fields.request_type === 'IMPRINT'
      ? 'Your card will be registered. Nothing is charged now.'
      : `Amount to pay now: ${formatAmount(fields.amount, fields.currency)}.`;
  const alert = error ? `<p class="error" role="alert" id="card-error">${escapeHtml(error)}</p>` : '';
  const described = error ? ' aria-describedby="card-error" aria-invalid="true"' : '';
  return page(
    'Card payment',
    `<p>Order ${escapeHtml(fields.reference)}. ${escapeHtml(what)}</p>
${alert}
<form method="post" action="${escapeHtml(action)}">
${hidden}
<label for="card_number">Card number</label>
<input id="card_number" name="card_number" inputmode="numeric" autocomplete="cc-number" required${described}>
<div class="row">
<div><label for="exp_month">Expiry month (MM)</label>
<input id="exp_month" name="exp_month" inputmode="numeric" autocomplete="cc-exp-month" maxlength="2" required></div>
<div><label for="exp_year">Expiry year (YYYY)</label>
<input id="exp_year" name="exp_year" inputmode="numeric" autocomplete="cc-exp-year" maxlength="4" required></div>
</div>
<label for="cvv">Security code (CVV)</label>
<input id="cvv" name="cvv" inputmode="numeric" autocomplete="cc-csc" maxlength="4" required>
<button type="submit">Pay (test)</button>
</form>
${testCards()}`,
  );
}

/** A form that was altered or is incomplete: nothing was charged, and the guest is told why. */
export function badRequestPage(): string {
  return page(
    'Invalid payment form',
    '<p role="alert">This payment form is incomplete or was altered, so it cannot be processed. Nothing was charged. Please go back to the payment link you received and try again.</p>',
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
