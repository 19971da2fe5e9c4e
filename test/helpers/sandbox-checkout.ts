import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { Currency, Language, RequestType } from '../../src/domain/index.ts';
import type { HostedCardForm } from '../../src/providers/index.ts';
import { deriveKey } from '../../src/secrets/index.ts';
import type { ListeningApp } from './listening-app.ts';
import { sandboxOf } from './providers.ts';

export interface CardInput {
  number: string;
  month?: string;
  year?: string;
  cvv?: string;
}

/** Next year: a valid expiry whatever the date the suite runs. */
export const FUTURE_YEAR = String(new Date().getUTCFullYear() + 1);

/**
 * The card form the guest page would render for a request, straight from the provider: the
 * same call the guest page makes, with the service's own result page and IPN endpoint.
 */
export async function checkoutForm(
  t: ListeningApp,
  id: string,
  urls: { returnUrl?: string; notifyUrl?: string } = {},
): Promise<HostedCardForm> {
  const r = await t.db.query<{
    reference: string;
    request_type: RequestType;
    amount: number;
    currency: Currency;
    language: Language;
    guest_email: string;
    tenant_name: string;
  }>(
    `SELECT r.reference, r.request_type, r.amount, r.currency, r.language, r.guest_email, t.name AS tenant_name
       FROM payment_requests r JOIN tenants t ON t.id = r.tenant_id WHERE r.id = $1`,
    [id],
  );
  const row = r.rows[0];
  assert.ok(row, `request ${id} exists`);
  const form = await sandboxOf(t.app).startGuestPayment({
    paymentRequestId: id,
    reference: row.reference,
    requestType: row.request_type,
    amountCents: row.amount,
    currency: row.currency,
    language: row.language,
    guestEmail: row.guest_email,
    merchantName: row.tenant_name,
    returnUrl: urls.returnUrl ?? `${t.baseUrl}/payment/${id}/result/`,
    notifyUrl: urls.notifyUrl ?? `${t.baseUrl}/ipn/sandbox/`,
  });
  assert.equal(form.kind, 'card-form', "the sandbox's form is a plain card form");
  if (form.kind !== 'card-form') throw new Error('unreachable');
  return form;
}

/**
 * The card form's signature as the sandbox documents it, computed here independently: an
 * HMAC-SHA-256, keyed by deriveKey(SECRET_KEY, 'sandbox-checkout'), of the JSON array of the
 * hidden fields' values in this order. Lets a test make a form the provider never handed out
 * (one already expired) that still verifies.
 */
export function signCheckoutForm(secretKey: string, fields: Record<string, string>): string {
  const order = [
    'order_id',
    'reference',
    'request_type',
    'amount',
    'currency',
    'language',
    'merchant_name',
    'return_url',
    'notify_url',
    'attempt_id',
    'expires_at',
  ];
  const text = JSON.stringify(order.map((f) => fields[f]));
  return createHmac('sha256', deriveKey(secretKey, 'sandbox-checkout')).update(text).digest('hex');
}

/** `form` with some hidden fields changed and signed again, as only the provider could. */
export function resigned(secretKey: string, form: HostedCardForm, changes: Record<string, string>): HostedCardForm {
  const { signature: _old, ...fields } = { ...form.hiddenFields, ...changes };
  return { ...form, hiddenFields: { ...fields, signature: signCheckoutForm(secretKey, fields) } };
}

/** What the guest's browser does on "Pay": a form-encoded POST, redirects not followed. */
export async function submitCard(
  form: HostedCardForm,
  card: CardInput,
  override: Record<string, string> = {},
): Promise<{ status: number; location: string | null; body: string; contentType: string | null }> {
  const fields = new URLSearchParams({
    ...form.hiddenFields,
    card_number: card.number,
    exp_month: card.month ?? '12',
    exp_year: card.year ?? FUTURE_YEAR,
    cvv: card.cvv ?? '123',
    ...override,
  });
  const r = await fetch(form.action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: fields.toString(),
    redirect: 'manual',
  });
  return {
    status: r.status,
    location: r.headers.get('location'),
    body: await r.text(),
    contentType: r.headers.get('content-type'),
  };
}

/** The request as the integrator sees it. */
export async function detail(t: ListeningApp, id: string): Promise<Record<string, unknown>> {
  const r = await t.call({ method: 'GET', url: `/api/payment-requests/${id}/` });
  assert.equal(r.statusCode, 200, r.body);
  return r.json();
}

/** Polls until `check` returns a value, or fails at the deadline: no fixed sleeps. */
export async function eventually<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Signs an IPN body the way the sandbox documents it, computed here independently. */
export function ipnSignature(secretKey: string, body: string): string {
  return `sha256=${createHmac('sha256', deriveKey(secretKey, 'sandbox-ipn')).update(body).digest('hex')}`;
}

/** Posts an IPN body to the service over HTTP, signed unless `signature` says otherwise. */
export async function postIpn(
  t: ListeningApp,
  body: string,
  signature: string | null = ipnSignature(t.app.payreq.secretKey, body),
): Promise<{ status: number; body: string }> {
  const r = await fetch(`${t.baseUrl}/ipn/sandbox/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(signature ? { 'x-sandbox-signature': signature } : {}) },
    body,
  });
  return { status: r.status, body: await r.text() };
}

export async function historyCount(t: ListeningApp, id: string): Promise<number> {
  const r = await t.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM status_history WHERE payment_request_id = $1',
    [id],
  );
  return r.rows[0]?.n ?? -1;
}
