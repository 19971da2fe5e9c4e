import assert from 'node:assert/strict';
import { guestCall } from '../../guest/guest-helpers.ts';
import type { TestApp } from '../../helpers/test-app.ts';

export interface CheckoutVisit {
  /** Checkout's page of this attempt (at the fake). */
  sessionUrl: string;
  sessionId: string;
}

/**
 * The guest on payreq's payment page presses the button that sends them to Stripe: payreq
 * answers 303 to the session's page at the fake. Undefined when the page offers no button
 * (the request cannot be paid: its outcome is shown instead).
 */
export async function openCheckout(t: TestApp, paymentLink: string): Promise<CheckoutVisit | undefined> {
  const page = await guestCall(t, paymentLink);
  assert.ok(page.statusCode < 500, `the payment page: ${page.statusCode}`);
  const action = /<form method="post" action="(\/payment\/[^"]+\/checkout\/)"/.exec(page.body)?.[1];
  if (!action) return undefined;
  const r = await guestCall(t, action, { method: 'POST' });
  if (r.statusCode === 503) return undefined;
  assert.equal(r.statusCode, 303, `the button: ${r.statusCode} ${r.body}`);
  const sessionUrl = String(r.headers.location);
  const sessionId = /\/pay\/(cs_[A-Za-z0-9_]+)$/.exec(sessionUrl)?.[1];
  assert.ok(sessionId, `a Checkout page: ${sessionUrl}`);
  return { sessionUrl, sessionId };
}

/**
 * The guest types `card` on the fake's Checkout page and submits it, as a browser posts the
 * form. Answers where Checkout sends the guest (payreq's result page, with the session id) on
 * success, or the decline shown on the page.
 */
export async function submitCheckout(
  visit: CheckoutVisit,
  card: string,
  expiry: { month: number; year: number } = { month: 12, year: 2030 },
): Promise<{ status: number; location?: string; error?: string }> {
  const form = await fetch(visit.sessionUrl);
  const html = await form.text();
  if (!html.includes('<form')) return { status: form.status, error: 'closed' };
  const r = await fetch(visit.sessionUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      card_number: card,
      exp_month: String(expiry.month),
      exp_year: String(expiry.year),
      cvc: '123',
    }).toString(),
    redirect: 'manual',
  });
  const body = await r.text();
  if (r.status === 303) return { status: 303, location: r.headers.get('location') ?? '' };
  return { status: r.status, error: /role="alert"[^>]*>([^<]*)</.exec(body)?.[1] ?? body.slice(0, 200) };
}

/** The guest lands back on payreq's result page (the path and query Checkout redirected to). */
export async function backOnResultPage(t: TestApp, location: string) {
  const url = new URL(location);
  return guestCall(t, `${url.pathname}${url.search}`);
}
