import type { FastifyInstance } from 'fastify';
import { AppError, errors } from '../domain/index.ts';
import {
  IgnoredNotification,
  InvalidNotificationError,
  type NotificationReceiver,
  ProviderError,
  type ProviderRegistry,
  UnknownNotificationOrder,
} from '../providers/index.ts';
import { refusedNotificationLimit } from './refused-notification-limit.ts';

/**
 * `POST /ipn/<provider>/`: the provider's notification. The signature is checked before
 * anything else, on the raw body exactly as received; a bad one changes nothing and is logged.
 * A verified event is applied once; a duplicate or an out-of-order one is acknowledged (200)
 * so the provider stops retrying, and changes nothing.
 */
export async function ipnRoutes(app: FastifyInstance): Promise<void> {
  // Providers post JSON or form-encoded bodies: keep every body as text for the signature.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  // Counts refusals only: a verified notification is never refused (refused-notification-limit.ts).
  const countRefusal = refusedNotificationLimit(app);

  app.post<{ Params: { provider: string } }>(
    '/ipn/:provider/',
    {
      schema: { hide: true },
      // No rate limit on the route: the handler counts refused notifications only.
    },
    async (request, reply) => {
      const { providers, notifications } = app.payreq;
      const receiver = receiverFor(providers, request.params.provider);
      if (!receiver) throw errors.routeNotFound();
      const raw = typeof request.body === 'string' ? request.body : '';
      let notification: Awaited<ReturnType<NotificationReceiver['receive']>>;
      try {
        notification = await receiver.receive(raw, request.headers);
      } catch (err) {
        // Reading it needed the provider (Stripe's events name what payreq then asks for), which
        // did not answer: nothing recorded, 502, and the provider sends the event again.
        if (err instanceof ProviderError) {
          request.log.warn({ reason: err.message, kind: err.kind }, 'IPN not read: the provider could not be asked');
          throw errors.providerUnavailable();
        }
        if (!(err instanceof InvalidNotificationError)) throw err;
        const why = { reason: err.message, ip: request.ip };
        // Authentic, about something payreq does not apply: acknowledged, or the provider retries for days.
        if (err instanceof IgnoredNotification) {
          request.log.info(why, 'IPN ignored');
          return reply.code(200).send({ status: 'ignored' });
        }
        await countRefusal(request, reply);
        if (err instanceof UnknownNotificationOrder) {
          request.log.warn(why, 'IPN refused: unknown order');
          throw new AppError('unknown_order', 404, 'Unknown order');
        }
        request.log.warn(why, 'IPN refused: invalid notification');
        throw new AppError('invalid_notification', 401, 'Invalid notification signature');
      }
      const outcome = await notifications.apply(receiver.name, notification);
      const facts = { event: notification.eventId, request: notification.paymentRequestId, outcome };
      // Money on a request that cannot take it is an incident someone must see, not routine.
      if (outcome === 'incident') request.log.warn(facts, 'IPN: money arrived where it should not; given back');
      else request.log.info(facts, 'IPN received');
      if (outcome === 'unknown_order') throw new AppError('unknown_order', 404, 'Unknown order');
      return reply.code(200).send({ status: outcome });
    },
  );
}

/** A per-account reader when the registry has one for this name, else the provider's own. */
function receiverFor(providers: ProviderRegistry, name: string): NotificationReceiver | undefined {
  const own = providers.notificationReceiver?.(name);
  if (own) return own;
  const provider = providers.byName(name);
  if (!provider) return undefined;
  return { name: provider.name, receive: async (raw, headers) => provider.parseNotification(raw, headers) };
}
