import type { IncomingMessage, ServerResponse } from 'node:http';
import { signAnswer } from '../../../src/providers/lyra/index.ts';

/**
 * The guest's side of the fake: Lyra's embedded-form script and the card form it shows.
 *
 * Recorded (Lyra's published embedded-form examples): the merchant page loads
 * `{static}/js/krypton-client/V4.0/stable/kr-payment-form.min.js` with `kr-public-key` and
 * `kr-post-url-success` attributes, and marks where the form goes with a
 * `<div class="kr-embedded" kr-form-token="...">`; once paid, the browser posts `kr-answer`,
 * `kr-hash` (HMAC key, `kr-hash-key=sha256_hmac`), `kr-hash-algorithm`, `kr-answer-type` to
 * `kr-post-url-success`, after Lyra's notification was answered.
 *
 * Recorded too: the theme is a stylesheet and a script next to the client,
 * `{static}/js/krypton-client/V4.0/ext/neon-reset.min.css` and `.../ext/neon.js`.
 *
 * INVENTED: how the card fields are drawn. Here the script puts one iframe of the fake's own
 * origin in the div (as the real client draws its fields from Lyra's origin, so the card never
 * touches the merchant's page), holding a plain HTML form: card number, expiry, CVV. The
 * iframe is refused (HTTP 403) unless `kr-public-key` is the shop's public key, standing in for
 * the real client's own refusal of a wrong key (its message is not recorded). The frame takes
 * the place of whatever the div held (whether the real client keeps it is not recorded). The theme files
 * served here are near empty: only their paths are Lyra's.
 */
export const JS_CLIENT_PATH = '/static/js/krypton-client/V4.0/stable/kr-payment-form.min.js';
export const THEME_STYLESHEET_PATH = '/static/js/krypton-client/V4.0/ext/neon-reset.min.css';
export const THEME_SCRIPT_PATH = '/static/js/krypton-client/V4.0/ext/neon.js';
const FORM_PATH = '/static/fake-card-form';

export interface CardPageDeps {
  /** Whether `key` is the public key of a shop the fake serves. */
  isPublicKey(key: string | null): boolean;
  /**
   * The guest submitted `pan` on the form of `formToken`: the payment's outcome, its notification
   * sent, and the HMAC key of the form's shop, which signs the browser's return.
   */
  pay(formToken: string, pan: string): Promise<{ answer: string; hmacKey: string } | undefined>;
}

/** Serves what lives under `/static/`; false when the path is not one of them. */
export async function serveCardPage(
  deps: CardPageDeps,
  req: IncomingMessage,
  res: ServerResponse,
  body: string,
): Promise<boolean> {
  const url = new URL(req.url ?? '/', 'http://fake.invalid');
  if (req.method === 'GET' && url.pathname === JS_CLIENT_PATH) {
    res.writeHead(200, { 'content-type': 'text/javascript' }).end(jsClient(FORM_PATH));
    return true;
  }
  if (req.method === 'GET' && url.pathname === THEME_STYLESHEET_PATH) {
    res
      .writeHead(200, { 'content-type': 'text/css' })
      .end('.kr-embedded iframe { border: 0; width: 100%; min-height: 16rem; }\n');
    return true;
  }
  if (req.method === 'GET' && url.pathname === THEME_SCRIPT_PATH) {
    res
      .writeHead(200, { 'content-type': 'text/javascript' })
      .end('/* fake Lyra: the neon theme draws nothing here */\n');
    return true;
  }
  if (url.pathname !== FORM_PATH) return false;
  if (req.method === 'GET') {
    if (!deps.isPublicKey(url.searchParams.get('publicKey'))) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end("fake: kr-public-key is not this shop's public key");
      return true;
    }
    const fields = {
      formToken: url.searchParams.get('formToken') ?? '',
      postUrl: url.searchParams.get('postUrl') ?? '',
    };
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(cardForm(fields));
    return true;
  }
  const form = new URLSearchParams(body);
  const postUrl = form.get('postUrl') ?? '';
  const paid = await deps.pay(form.get('formToken') ?? '', (form.get('card_number') ?? '').replace(/\s+/g, ''));
  if (!paid || !/^https?:\/\//.test(postUrl)) {
    res.writeHead(400, { 'content-type': 'text/plain' }).end('fake: unknown or used form token');
    return true;
  }
  const back = {
    'kr-hash-key': 'sha256_hmac',
    'kr-hash-algorithm': 'sha256_hmac',
    'kr-answer-type': 'V4/Payment',
    'kr-answer': paid.answer,
    'kr-hash': signAnswer(paid.hmacKey, paid.answer),
  };
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(browserReturn(postUrl, back));
  return true;
}

/** The fake client: one iframe per `.kr-embedded`, carrying the form token and where to return. */
function jsClient(formPath: string): string {
  return `(() => {
  const script = document.currentScript;
  const origin = new URL(script.src).origin;
  const postUrl = new URL(script.getAttribute('kr-post-url-success') || '', document.baseURI).href;
  const publicKey = script.getAttribute('kr-public-key') || '';
  const draw = () => document.querySelectorAll('.kr-embedded[kr-form-token]').forEach((div) => {
    const frame = document.createElement('iframe');
    frame.title = 'Card payment';
    frame.name = 'kr-fake-card-form';
    frame.src = origin + '${formPath}?formToken=' + encodeURIComponent(div.getAttribute('kr-form-token'))
      + '&postUrl=' + encodeURIComponent(postUrl) + '&publicKey=' + encodeURIComponent(publicKey);
    div.replaceChildren(frame);
  });
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', draw); else draw();
})();`;
}

function cardForm(fields: { formToken: string; postUrl: string }): string {
  return `<!doctype html><html lang="en"><meta charset="utf-8"><title>Card (fake Lyra)</title>
<form method="post" action="${FORM_PATH}">
<input type="hidden" name="formToken" value="${attr(fields.formToken)}">
<input type="hidden" name="postUrl" value="${attr(fields.postUrl)}">
<label>Card number <input name="card_number" autocomplete="cc-number" required></label>
<label>Month <input name="exp_month" value="12"></label>
<label>Year <input name="exp_year" value="2030"></label>
<label>CVV <input name="cvv" value="123"></label>
<button type="submit">Pay</button>
</form></html>`;
}

/** The browser's return: posted to the merchant's page, the whole window leaving the iframe. */
function browserReturn(postUrl: string, fields: Record<string, string>): string {
  const inputs = Object.entries(fields)
    .map(([k, v]) => `<input type="hidden" name="${attr(k)}" value="${attr(v)}">`)
    .join('');
  return `<!doctype html><html lang="en"><meta charset="utf-8"><title>Returning</title>
<form id="back" method="post" action="${attr(postUrl)}" target="_top">${inputs}<button>Continue</button></form>
<script>document.getElementById('back').submit();</script></html>`;
}

function attr(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
