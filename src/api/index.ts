import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { API_INTRODUCTION } from './api-introduction.ts';
import { eventsRoutes } from './events-routes.ts';
import { completeDocument } from './openapi-document.ts';
import { actionRoutes } from './payment-requests/action-routes.ts';
import { createRoute } from './payment-requests/create-route.ts';
import { deleteRoute } from './payment-requests/delete-route.ts';
import { readRoutes } from './payment-requests/read-routes.ts';

export { type ApiCaller, type Authenticator, authenticator } from './authenticator.ts';
export { checkCreateBody, isGuestEmail } from './create-body-check.ts';

import './request-fields.ts';

export { answerClientError, MAX_HEADER_BYTES } from './client-errors.ts';
export {
  frameworkErrors,
  installErrorHandling,
  installRetryAfter,
  RETRY_AFTER_SECONDS,
  sendError,
  toAppError,
} from './error-handler.ts';
export { installHeaderGuard } from './header-guard.ts';
export { decodeUtf8, MAX_JSON_DEPTH, parseJsonBody } from './json-body.ts';
export { originForm } from './request-target.ts';
export { validatorCompiler } from './validator.ts';

/** The integrator API under /api: the OpenAPI document, its reference page and the routes. */
export async function apiPlugin(app: FastifyInstance): Promise<void> {
  // API_DOCS: off by default in production, where the reference is published by the operator
  // if at all, rather than telling anyone who asks the service's whole surface.
  if (app.payreq.config.apiDocs) await registerApiDocs(app);

  await app.register(
    async (api) => {
      api.addHook('onRequest', async (request) => {
        request.caller = await app.payreq.auth.authenticate(request.headers['x-api-key']);
      });
      // In this order: the OpenAPI document lists the paths as the routes were added.
      await api.register(createRoute);
      await api.register(readRoutes);
      await api.register(actionRoutes);
      await api.register(deleteRoute);
      await api.register(eventsRoutes);
    },
    { prefix: '/api' },
  );
}

/** The OpenAPI document (made from the route schemas) and its interactive reference page. */
async function registerApiDocs(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'payreq API',
        version: '1.0.0',
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
        description: API_INTRODUCTION,
      },
      servers: [{ url: app.payreq.config.publicBaseUrl }],
      tags: [
        {
          name: 'payment-requests',
          description: 'Create imprints and deposits, read them, and capture, release, refund, cancel or delete them',
        },
        { name: 'events', description: 'The feed of every change to the requests, in order (the same as webhooks)' },
      ],
      components: {
        securitySchemes: { ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
      },
      security: [{ ApiKey: [] }],
    },
    transformObject: (doc) => {
      if (!('openapiObject' in doc)) return doc.swaggerObject;
      // @fastify/swagger marks every declared body as required; completeDocument says which are not.
      completeDocument(doc.openapiObject);
      return doc.openapiObject;
    },
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs', staticCSP: true });
  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
