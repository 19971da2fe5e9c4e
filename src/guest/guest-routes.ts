import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../domain/index.ts';
import { type GuestCheckout, InvalidNotificationError, ProviderError } from '../providers/index.ts';
import { bilingualPage, outcomePage, paymentPage } from './guest-pages.ts';
import { findGuestRequest, type GuestRequest } from './guest-request.ts';
import { ACCENT_STYLESHEET_PREFIX, accentCss, GUEST_CSS, STYLESHEET_PATH } from './guest-styles.ts';
import { inTestMode, paymentPageView, resultPageView } from './guest-view.ts';
import { languageMemory } from './language-memory.ts';
import { logoRoutes } from './logo-routes.ts';
import { contentSecurityPolicy, embeddedFormPolicy, originOf, STATIC_SECURITY_HEADERS } from './security-headers.ts';

/** The guest payment form takes at most 30 requests per minute per IP address. */
export const GUEST_RATE_LIMIT = 30;

/** Thrown by the rate limiter; rendered as the 429 page (Retry-After is already set). */
class GuestRateLimited extends Error {
  readonly statusCode = 429;
}

type IdParams = { Params: { id: string } };

/**
 * The guest's pages: `/payment/<uuid>/` (what will happen, and the provider's card form) and
 * `/payment/<uuid>/result/` (where the provider sends the guest back). HTML only, in the
 * request's language, no script of ours (a provider's embedded form brings its own, on the
 * payment page only); every answer here, errors included, is an HTML page with the
 * guest security headers.
 */
export async function guestRoutes(app: FastifyInstance): Promise<void> {
  await app.register(guestPages, { prefix: '/payment' });
  await app.register(logoRoutes, { prefix: '/logo' });
}

async function guestPages(app: FastifyInstance): Promise<void> {
  const { config, db, guest, providers, notifications } = app.payreq;
  const publicOrigin = originOf(config.publicBaseUrl, config.publicBaseUrl);
  const defaultPolicy = contentSecurityPolicy(publicOrigin ? [publicOrigin] : []);
  const languages = languageMemory();
  const sandboxRuns = providers.byName('sandbox') !== undefined;
  const testMode = (req: GuestRequest) => inTestMode(req.account, sandboxRuns);

  // One budget for both pages (one limiter, one store): a guest waiting on the result page's
  // refresh and going back to the form uses the same 30 a minute. The stylesheet is left out:
  // it is static, and counting it would halve what a guest can load.
  const limit = app.rateLimit({
    max: GUEST_RATE_LIMIT,
    timeWindow: 60_000,
    errorResponseBuilder: () => new GuestRateLimited('Too many requests'),
  });

  // The provider may post the guest back to the result page. A form (Lyra's signed return) is
  // kept as text to be verified and logged, never applied: the notification is what counts.
  // Any other body is read and dropped.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 16 * 1024 },
    (_r, body, done) => done(null, body),
  );
  app.addContentTypeParser('*', { bodyLimit: 16 * 1024 }, (_request, payload, done) => {
    payload.resume();
    payload.on('end', () => done(null, undefined));
    payload.on('error', (err) => done(err, undefined));
  });

  app.addHook('onSend', async (_request, reply) => {
    reply.headers(STATIC_SECURITY_HEADERS);
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    if (!reply.hasHeader('content-security-policy')) {
      reply.header('content-security-policy', defaultPolicy);
    }
  });

  // A provider posts its card form to one address or a few: the policy for an action is
  // worked out once (URL parsing showed in profiles of the page).
  const policies = new Map<string, string | undefined>();
  const formPolicy = (action: string): string | undefined => {
    if (policies.has(action)) return policies.get(action);
    const target = formTarget(action, config.publicBaseUrl);
    const policy = target ? contentSecurityPolicy([publicOrigin, target].filter(isString)) : undefined;
    if (policies.size >= 100) policies.clear();
    policies.set(action, policy);
    return policy;
  };
  /**
   * A provider's own script draws the form: its static host, and no other, is admitted by the
   * page's policy. Its script and theme must come from that one origin.
   */
  const checkoutPolicy = (form: Exclude<GuestCheckout, { kind: 'hosted-page' }>): string | undefined => {
    if (form.kind === 'card-form') return formPolicy(form.action);
    const origins = new Set(
      [form.scriptUrl, form.themeStylesheetUrl, form.themeScriptUrl].map((u) => formTarget(u, config.publicBaseUrl)),
    );
    const [staticOrigin] = origins;
    if (origins.size !== 1 || !staticOrigin) return undefined;
    return embeddedFormPolicy(staticOrigin, [publicOrigin].filter(isString));
  };
  const page = (reply: FastifyReply, status: number, body: string) =>
    reply.code(status).type('text/html; charset=utf-8').send(body);
  const notFound = (reply: FastifyReply) =>
    page(
      reply,
      404,
      bilingualPage((m) => m.notFound),
    );

  app.setNotFoundHandler({ preHandler: limit }, (_request, reply) => notFound(reply));

  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const id = (request.params as { id?: string } | undefined)?.id;
    if (err instanceof GuestRateLimited) {
      return page(
        reply,
        429,
        bilingualPage((m) => m.tooManyRequests, languages.recall(id)),
      );
    }
    const status = err instanceof AppError ? err.httpStatus : (err.statusCode ?? 500);
    if (status === 404) return notFound(reply);
    if (status >= 500) request.log.error({ err }, 'guest page failed');
    else request.log.info({ status, code: err.code }, 'guest page refused');
    return page(
      reply,
      status >= 400 && status < 600 ? status : 500,
      bilingualPage((m) => m.failure),
    );
  });

  app.get(STYLESHEET_PATH.replace('/payment', ''), async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(GUEST_CSS),
  );
  // Named by the colour itself: the same URL is always the same file, kept for a year.
  app.get<{ Params: { file: string } }>(
    `${ACCENT_STYLESHEET_PREFIX.replace('/payment', '')}:file`,
    async (request, reply) => {
      const css = accentCss(request.params.file);
      if (!css) return notFound(reply);
      return reply
        .type('text/css; charset=utf-8')
        .header('cache-control', 'public, max-age=31536000, immutable')
        .send(css);
    },
  );

  /** The request, or the 404 page already sent. */
  async function load(request: FastifyRequest<IdParams>, reply: FastifyReply): Promise<GuestRequest | undefined> {
    const req = await findGuestRequest(db, request.params.id);
    if (!req) {
      await notFound(reply);
      return undefined;
    }
    languages.remember(req.id, req.language);
    return req;
  }

  app.get<IdParams>('/:id/', { onRequest: limit }, async (request, reply) => {
    const req = await load(request, reply);
    if (!req) return reply;
    const view = paymentPageView(req);
    if (view.kind === 'outcome') return page(reply, 200, outcomePage(req, view.outcome, { testMode: testMode(req) }));
    // Opening the form is what moves NOT_INITIATED to PENDING (a no-op otherwise).
    if (req.status === 'NOT_INITIATED') await guest.openForm(req.id);
    const provider = await providers.forTenant(req.tenantId);
    const hosted = provider.hostedCheckout;
    if (hosted) {
      // The provider's own page: a button that opens an attempt there when the guest asks.
      const origins = hosted.origins.filter((o) => formTarget(o, config.publicBaseUrl) === o);
      reply.header('content-security-policy', contentSecurityPolicy([publicOrigin, ...origins].filter(isString)));
      const button = { kind: 'provider-page' as const, action: `/payment/${req.id}/checkout/`, provider: hosted.name };
      return page(reply, 200, paymentPage(req, button, { retry: view.retry, testMode: testMode(req) }));
    }
    let form: GuestCheckout;
    try {
      form = await provider.startGuestPayment({
        paymentRequestId: req.id,
        reference: req.reference,
        requestType: req.requestType,
        amountCents: req.amountCents,
        currency: req.currency,
        language: req.language,
        guestEmail: req.guestEmail,
        merchantName: req.hotelName,
        returnUrl: `${config.publicBaseUrl}/payment/${req.id}/result/`,
        notifyUrl: `${config.publicBaseUrl}/ipn/${provider.name}/`,
      });
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      request.log.warn({ kind: err.kind, reason: err.message, request: req.id }, 'guest payment unavailable');
      return page(reply.header('retry-after', '60'), 503, outcomePage(req, 'unavailable', { testMode: testMode(req) }));
    }
    if (form.kind === 'hosted-page') throw new Error('a hosted page is opened by its button, not by the page');
    const policy = checkoutPolicy(form);
    if (!policy) {
      request.log.error(
        { request: req.id, kind: form.kind },
        'provider gave a card form whose URLs are not http(s) or not one host',
      );
      return page(reply.header('retry-after', '60'), 503, outcomePage(req, 'unavailable', { testMode: testMode(req) }));
    }
    reply.header('content-security-policy', policy);
    return page(reply, 200, paymentPage(req, form, { retry: view.retry, testMode: testMode(req) }));
  });

  /**
   * The guest asks to go to the provider's own page (the payment page's button): one attempt
   * is opened there and the guest sent to it (303). Anything else goes back to the payment
   * page, which says where the request stands.
   */
  app.post<IdParams>('/:id/checkout/', { onRequest: limit }, async (request, reply) => {
    const req = await load(request, reply);
    if (!req) return reply;
    const back = `/payment/${encodeURIComponent(req.id)}/`;
    if (paymentPageView(req).kind !== 'form') return reply.redirect(back, 303);
    const provider = await providers.forTenant(req.tenantId);
    if (!provider.hostedCheckout) return reply.redirect(back, 303);
    if (req.status === 'NOT_INITIATED') await guest.openForm(req.id);
    let form: GuestCheckout;
    try {
      form = await provider.startGuestPayment({
        paymentRequestId: req.id,
        reference: req.reference,
        requestType: req.requestType,
        amountCents: req.amountCents,
        currency: req.currency,
        language: req.language,
        guestEmail: req.guestEmail,
        merchantName: req.hotelName,
        returnUrl: `${config.publicBaseUrl}/payment/${req.id}/result/`,
        cancelUrl: `${config.publicBaseUrl}/payment/${req.id}/`,
        notifyUrl: `${config.publicBaseUrl}/ipn/${provider.name}/`,
      });
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      request.log.warn({ kind: err.kind, reason: err.message, request: req.id }, 'guest payment unavailable');
      return page(reply.header('retry-after', '60'), 503, outcomePage(req, 'unavailable', { testMode: testMode(req) }));
    }
    if (form.kind !== 'hosted-page' || !formTarget(form.url, config.publicBaseUrl)) {
      request.log.error({ request: req.id, kind: form.kind }, 'provider gave no http(s) page to send the guest to');
      return page(reply.header('retry-after', '60'), 503, outcomePage(req, 'unavailable', { testMode: testMode(req) }));
    }
    return reply.redirect(form.url, 303);
  });

  const result = async (request: FastifyRequest<IdParams>, reply: FastifyReply) => {
    let req = await load(request, reply);
    if (!req) return reply;
    const query = stringsOf(request.query);
    // Read again once the provider was asked: what it said is applied now, by this page or by
    // the notification that raced it (whose commit the duplicate waited for).
    if (Object.keys(query).length > 0 && (await confirmReturn(request, req, query))) {
      req = (await findGuestRequest(db, req.id)) ?? req;
    }
    return page(reply, 200, outcomePage(req, resultPageView(req), { testMode: testMode(req) }));
  };

  /**
   * The guest came back from the provider's page with what it put in the address (Stripe's
   * `session_id`): the provider is asked, with the hotel's key, what became of that attempt,
   * and the answer applied as its notification would be (the same event: whichever comes
   * first wins, the other changes nothing). Anything wrong is logged and the page shows the
   * request as it stands: the notification still comes.
   */
  async function confirmReturn(
    request: FastifyRequest,
    req: GuestRequest,
    query: Record<string, string>,
  ): Promise<boolean> {
    // True when the provider told something (applied here or already): the page reads the request again.
    try {
      const provider = await providers.forTenant(req.tenantId);
      const read = await provider.confirmGuestReturn?.(req.id, query);
      if (!read) return false;
      const outcome = await notifications.apply(provider.name, read);
      request.log.info({ request: req.id, event: read.eventId, outcome }, 'guest return confirmed with the provider');
      return true;
    } catch (err) {
      if (!(err instanceof InvalidNotificationError) && !(err instanceof ProviderError)) throw err;
      request.log.warn({ request: req.id, reason: err.message }, 'guest return not confirmed');
      return false;
    }
  }

  app.get<IdParams>('/:id/result/', { onRequest: limit }, result);
  // A provider that returns the guest with a POST: answer with a redirect, so that a reload
  // (or the processing page's refresh) is a plain GET and never a form resubmission.
  app.post<IdParams>('/:id/result/', { onRequest: limit }, async (request, reply) => {
    if (typeof request.body === 'string' && request.body !== '') await checkReturn(request, request.body);
    return reply.redirect(`/payment/${encodeURIComponent(request.params.id)}/result/`, 303);
  });

  /**
   * Lyra's browser return, signed with the account's HMAC key: verified and logged, and that is
   * all. A status changes only by the provider's notification (server to server, signed with
   * another key); a return anyone can post must not, however well it verifies.
   */
  async function checkReturn(request: FastifyRequest<IdParams>, body: string): Promise<void> {
    const req = await findGuestRequest(db, request.params.id);
    if (!req) return;
    try {
      const provider = await providers.forTenant(req.tenantId);
      const read = provider.readBrowserReturn(body);
      if (!read) return;
      if (read.paymentRequestId !== req.id) throw new InvalidNotificationError('the return names another order');
      request.log.info(
        { request: req.id, outcome: read.outcome, transaction: read.transactionId },
        'guest browser return verified (applied only by the notification)',
      );
    } catch (err) {
      if (!(err instanceof InvalidNotificationError) && !(err instanceof ProviderError)) throw err;
      request.log.warn({ request: req.id, reason: err.message }, 'guest browser return refused');
    }
  }
}

/** The text values of a query string (the provider's return), nothing else. */
function stringsOf(query: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof query !== 'object' || query === null) return out;
  for (const [k, v] of Object.entries(query)) if (typeof v === 'string' && v.length <= 500) out[k] = v;
  return out;
}

/** The origin the card form posts to, when its action is an http(s) URL; else undefined. */
function formTarget(action: string, base: string): string | undefined {
  try {
    const url = new URL(action, base);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

function isString(v: string | undefined): v is string {
  return typeof v === 'string';
}
