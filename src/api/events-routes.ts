import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors } from '../domain/index.ts';
import { presentEvent } from '../events/index.ts';
import { authErrors, EventBody, EventsQuery, errorResponse, okResponse, ValidationErrorBody } from './schemas.ts';

/** The event feed: every status change of the tenant's requests, in order, from one place. */
export const eventsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { repos, config } = app.payreq;

  app.get(
    '/events/',
    {
      schema: {
        tags: ['events'],
        operationId: 'listEvents',
        summary: 'Events after a cursor, oldest first',
        description:
          'Every status change of every request of the tenant, as events, in order. Give the `id` of the last event processed as `after` to get the next ones; an empty array means nothing new yet. When the page is full, `Link` (rel="next") names the next page. Events are kept 90 days.',
        querystring: EventsQuery,
        response: {
          200: okResponse(Type.Array(EventBody), 'The events that follow `after`, at most `limit`'),
          ...authErrors,
          422: errorResponse(ValidationErrorBody, '`after` or `limit` is not a number in range', ['validation_failed']),
        },
      },
    },
    async (request, reply) => {
      const c = request.caller;
      if (!c) throw errors.unauthorized();
      const limit = request.query.limit ?? 100;
      const rows = await repos.events.feed(c.tenantId, request.query.after, limit);
      const last = rows[rows.length - 1];
      if (rows.length === limit && last) {
        const next = new URLSearchParams({ after: String(last.id), limit: String(limit) });
        reply.header('link', `<${config.publicBaseUrl}/api/events/?${next}>; rel="next"`);
      }
      return rows.map(presentEvent);
    },
  );
};
