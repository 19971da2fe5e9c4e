import type { FastifyInstance, FastifyReply } from 'fastify';
import { runClaimed } from '../../queue/index.ts';
import { checkCardForm } from './card-form-check.ts';
import { attemptExpired, type CheckoutFields, checkoutKey, verifyCheckout } from './checkout-signature.ts';
import { deliveryPolicy, leaseFor, sandboxJobKind } from './ipn-delivery.ts';
import type { SandboxIpnBody } from './notification-body.ts';
import { orderRoute } from './order-route.ts';
import { reportRoute } from './report-route.ts';
import { badRequestPage, cardPage, expiredPage, securityHeaders } from './sandbox-pages.ts';
import { SANDBOX_PAY_PATH } from './sandbox-provider.ts';
import { newId, sandboxStore } from './sandbox-store.ts';
import { decide, maskPan } from './test-cards.ts';

/** A card form is a few hundred bytes; anything much larger is not one. */
const FORM_BODY_LIMIT = 8 * 1024;

/** The first of each repeated field: a value appended later cannot replace a signed one. */
function parseForm(body: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(body)) {
    if (!Object.hasOwn(out, k)) out[k] = v;
  }
  return out;
}

/**
 * The sandbox's own pages under `/sandbox/`, its order view, its remittance report, and the first attempt of each
 * notification (the retries are the queue's: sandboxJobKind, run by the app's worker).
 * Registered only when the sandbox is the provider; it reads nothing of the service but its
 * own tables.
 */
export async function sandboxRoutes(app: FastifyInstance): Promise<void> {
  const { db, secretKey, config } = app.payreq;
  const store = sandboxStore(db);
  const formKey = checkoutKey(secretKey);
  const policy = deliveryPolicy(config.sandboxIpnRetryMs);
  const action = `${config.publicBaseUrl}${SANDBOX_PAY_PATH}`;
  const headers = securityHeaders(new URL(config.publicBaseUrl).origin);
  const log = app.log.child({ component: 'sandbox' });
  const notifications = sandboxJobKind(app.payreq, log);

  // The app accepts JSON only; the card page posts a plain HTML form, so this scope (and only
  // this one) reads form bodies.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
    (_request, body, done) => done(null, parseForm(body as string)),
  );

  const html = (reply: FastifyReply, code: number, body: string) => reply.code(code).headers(headers).send(body);

  orderRoute(app, store, db);
  reportRoute(app, db);

  app.post(SANDBOX_PAY_PATH, { schema: { hide: true } }, async (request, reply) => {
    // No body, or a JSON one: not the card form, so no signed fields to find (400 below).
    const form = request.body;
    const posted = typeof form === 'object' && form !== null ? (form as Record<string, string>) : {};
    const fields = verifyCheckout(formKey, posted);
    if (!fields) {
      request.log.warn({ ip: request.ip }, 'sandbox: card form with a missing or bad signature');
      return html(reply, 400, badRequestPage(posted.language));
    }
    const now = new Date();
    // 410: this form is gone for good, and the page says so; a new one is a reload away.
    if (attemptExpired(fields, now)) return html(reply, 410, expiredPage(fields));
    const signature = posted.signature as string;
    const check = checkCardForm(posted, now);
    if (!check.ok) {
      const entered = { exp_month: posted.exp_month ?? '', exp_year: posted.exp_year ?? '' };
      return html(reply, 422, cardPage(action, fields, signature, { ...check, entered }));
    }

    const { card } = check;
    const imprint = fields.request_type === 'IMPRINT';
    const decision = decide(card.number, imprint ? 'register' : 'charge');
    const amount = Number(fields.amount);
    const accepted = decision === 'accepted';
    const eventId = newId('evt');
    const recorded = await store.recordCheckout({
      attemptId: fields.attempt_id,
      ...(imprint && accepted ? { card } : {}),
      transaction: {
        orderId: fields.order_id,
        kind: imprint ? 'verification' : 'payment',
        status: !accepted ? (decision === 'refused' ? 'refused' : 'error') : imprint ? 'accepted' : 'captured',
        amount: imprint ? 0 : amount,
        capturedAmount: !imprint && accepted ? amount : 0,
        currency: fields.currency,
      },
      succeeded: accepted,
      notification: {
        url: fields.notify_url,
        body: (ids) => JSON.stringify(ipnBody(fields, eventId, decision, ids, card)),
      },
      leaseMs: leaseFor(policy, 1),
    });
    if (!recorded) {
      // The same attempt again (back button, double click, parallel posts), or an order already
      // paid or registered: nothing is charged and nothing is notified. The guest is sent back
      // to the merchant's return URL, as hosted payment pages do with a session already used:
      // the merchant's page knows and shows where the order stands, the sandbox does not.
      request.log.info(
        { order: fields.order_id, attempt: fields.attempt_id },
        'sandbox: attempt refused, already used',
      );
      return reply.redirect(fields.return_url, 303);
    }
    // The guest waits for the first attempt, so the result page usually shows the outcome;
    // if it fails, the loop retries and the result page catches up when the IPN lands.
    // Settled like any job of the queue: fenced, so a retry already taken over is not undone.
    await runClaimed(db, notifications, recorded.job, new Date(), log);
    return reply.redirect(fields.return_url, 303);
  });
}

function ipnBody(
  fields: CheckoutFields,
  eventId: string,
  decision: ReturnType<typeof decide>,
  ids: { transactionId: string; legacyTransId: string; token?: string },
  card: { number: string; expMonth: number; expYear: number },
): SandboxIpnBody {
  const base = {
    event_id: eventId,
    order_id: fields.order_id,
    transaction_id: ids.transactionId,
    transaction_number: ids.legacyTransId,
    currency: fields.currency,
    created_at: new Date().toISOString(),
  };
  if (decision === 'refused') return { ...base, outcome: 'refused', detail: 'card refused by the issuer' };
  if (decision === 'error') return { ...base, outcome: 'error', detail: 'technical error at the acquirer' };
  if (fields.request_type === 'IMPRINT') {
    return {
      ...base,
      outcome: 'registered',
      card_token: ids.token,
      masked_pan: maskPan(card.number),
      expiry_month: card.expMonth,
      expiry_year: card.expYear,
      amount: 0,
    };
  }
  // The card that paid is shown to the hotel too (masked_pan and expiry in the detail), never stored.
  return {
    ...base,
    outcome: 'paid',
    amount: Number(fields.amount),
    masked_pan: maskPan(card.number),
    expiry_month: card.expMonth,
    expiry_year: card.expYear,
  };
}
