import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import type { Actor } from '../db/index.js';
import {
  errors,
  type FieldIssue,
  isTimestampInRange,
  type RequestType,
  type Status,
  TIMESTAMP_RANGE_MESSAGE,
} from '../domain/index.js';
import type { ApiCaller } from './authenticator.js';
import { withIdempotency, withKeyInStatement } from './idempotency.js';
import { decodeCursor, encodeCursor, isUuid } from './list-cursor.js';
import { paymentLink, presentDetail, presentStatus } from './presenters.js';
import {
  ActionResponse,
  AuthErrorBody,
  CaptureBody,
  CreateBody,
  ErrorBody,
  ListQuery,
  MessageBody,
  PaymentRequestDetail,
  PaymentRequestResponse,
  PaymentRequestStatus,
  StatusesQuery,
  UuidParams,
  ValidationErrorBody,
} from './schemas.js';

export const MAX_REFS = 500;
const TAG = ['payment-requests'];
const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({ description: 'Retry safely: the same key and body within 24 h replays the first response' }),
  ),
});
const authErrors = { 401: AuthErrorBody, 403: AuthErrorBody };
const notFound = { 404: ErrorBody };

function caller(request: FastifyRequest): ApiCaller {
  const c = request.caller;
  if (!c) throw errors.unauthorized();
  return c;
}

/** The created_after / created_before filters as dates, refused (422) outside the accepted range. */
function dateFilters(q: ListQuery): { createdAfter?: Date; createdBefore?: Date } {
  const issues: FieldIssue[] = [];
  const read = (field: 'created_after' | 'created_before') => {
    const raw = q[field];
    if (raw === undefined) return undefined;
    const d = new Date(raw);
    if (!isTimestampInRange(d)) issues.push({ field, message: TIMESTAMP_RANGE_MESSAGE });
    return d;
  };
  const createdAfter = read('created_after');
  const createdBefore = read('created_before');
  if (issues.length > 0) throw errors.validation(issues);
  return { createdAfter, createdBefore };
}

const apiActor = (c: ApiCaller): Actor => ({ source: 'api', actor: `key:${c.keyPrefix}` });

/** A path uuid that is not a UUID names no request: 404 like any unknown one (DESIGN.md 5). */
function requestId(uuid: string): string {
  if (!isUuid(uuid)) throw errors.notFound(uuid.slice(0, 100));
  return uuid.toLowerCase();
}

export const paymentRequestsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { repos, commands, config } = app.payreq;

  app.post(
    '/payment-requests/',
    {
      schema: {
        tags: TAG,
        summary: 'Create a payment request',
        headers: IdempotencyHeaders,
        body: CreateBody,
        response: {
          201: PaymentRequestResponse,
          400: ErrorBody,
          ...authErrors,
          422: ValidationErrorBody,
          429: ErrorBody,
        },
      },
      config: {
        rateLimit: {
          hook: 'preHandler',
          timeWindow: 60_000,
          keyGenerator: (req: FastifyRequest) => `create:${req.caller?.keyId ?? req.ip}`,
          max: (req: FastifyRequest) => req.caller?.createRateLimit || config.createRateLimit || 1,
          // 0 turns the limit off, for the tenant or for the whole instance (benchmarks).
          allowList: (req: FastifyRequest) => (req.caller?.createRateLimit ?? config.createRateLimit) === 0,
        },
      },
    },
    async (request, reply) => {
      const c = caller(request);
      // No sandbox to fall back on (PAYMENT_PROVIDER=lyra, as production runs): a tenant with no
      // real account could never be paid. Read with the API key (same query, same cache).
      if (config.paymentProvider === 'lyra' && !c.realProvider) throw errors.providerNotConfigured();
      // A keyed create stores its key and response in its one statement (withKeyInStatement).
      return withKeyInStatement(repos, request, reply, c, {
        async run() {
          const created = await commands.create(c, request.body, apiActor(c));
          return { status: 201, body: { ...created, payment_link: paymentLink(created.uuid) } };
        },
        async runWithKey(k) {
          const created = await commands.createWithKey(c, request.body, apiActor(c), (uuid) => {
            // The response as it will be sent, but for the reference: the sequence gives it in SQL.
            const body = { uuid, reference: k.placeholder, status: 'NOT_INITIATED', payment_link: paymentLink(uuid) };
            return {
              key: k.key,
              fingerprint: k.fingerprint,
              template: k.serialize(201, body),
              placeholder: k.placeholder,
            };
          });
          return created ? { status: 201, serialized: created.response } : 'key-not-free';
        },
      });
    },
  );

  app.get(
    '/payment-requests/',
    {
      schema: {
        tags: TAG,
        summary: 'List payment requests, newest first',
        description:
          'A bare array. When more rows exist, the `Link` header (RFC 8288) carries the next page URL with rel="next".',
        querystring: ListQuery,
        response: { 200: Type.Array(PaymentRequestDetail), 400: ErrorBody, ...authErrors, 422: ValidationErrorBody },
      },
    },
    async (request, reply) => {
      const c = caller(request);
      const q = request.query;
      const limit = q.limit ?? 100;
      const rows = await repos.paymentRequests.list(c.tenantId, {
        status: q.status as Status | undefined,
        requestType: q.request_type as RequestType | undefined,
        reservationRef: q.reservation_ref,
        ...dateFilters(q),
        before: q.cursor ? decodeCursor(q.cursor) : undefined,
        limit: limit + 1,
      });
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      if (rows.length > limit && last) {
        const next = new URLSearchParams();
        for (const [k, v] of Object.entries(q)) if (v !== undefined && k !== 'cursor') next.set(k, String(v));
        next.set('cursor', encodeCursor(last.created_at, last.id));
        reply.header('link', `<${config.publicBaseUrl}/api/payment-requests/?${next}>; rel="next"`);
      }
      return page.map(presentDetail);
    },
  );

  app.get(
    '/payment-requests/statuses/',
    {
      schema: {
        tags: TAG,
        summary: 'Statuses of the requests of some reservations',
        description: `Unknown references are absent from the answer; every request of a reservation appears. At most ${MAX_REFS} references.`,
        querystring: StatusesQuery,
        response: { 200: Type.Array(PaymentRequestStatus), 400: ErrorBody, ...authErrors },
      },
    },
    async (request) => {
      const c = caller(request);
      const refs = [
        ...new Set(
          (request.query.refs ?? '')
            .split(',')
            .map((r) => r.trim())
            .filter(Boolean),
        ),
      ];
      if (refs.length === 0) throw errors.refsRequired();
      if (refs.length > MAX_REFS) throw errors.tooManyRefs(MAX_REFS);
      const rows = await repos.paymentRequests.statuses(c.tenantId, refs);
      return rows.map(presentStatus);
    },
  );

  app.get(
    '/payment-requests/:uuid/',
    {
      schema: {
        tags: TAG,
        summary: 'Detail of a payment request',
        params: UuidParams,
        response: { 200: PaymentRequestDetail, ...authErrors, ...notFound },
      },
    },
    async (request) => {
      const c = caller(request);
      const id = requestId(request.params.uuid);
      const row = await repos.paymentRequests.find(c.tenantId, id);
      if (!row) throw errors.notFound(id);
      return presentDetail(row);
    },
  );

  const actionSchema = (summary: string, description: string, body?: unknown) => ({
    tags: TAG,
    summary,
    description,
    params: UuidParams,
    headers: IdempotencyHeaders,
    ...(body ? { body } : {}),
    response: {
      200: ActionResponse,
      400: ErrorBody,
      ...authErrors,
      ...notFound,
      409: ErrorBody,
      422: ValidationErrorBody,
      402: { ...ErrorBody, description: 'The provider refused the operation (e.g. the authorisation ended)' },
      502: { ...ErrorBody, description: 'The provider could not be reached; nothing was changed, retry later' },
    },
  });

  app.post(
    '/payment-requests/:uuid/capture/',
    {
      schema: actionSchema(
        'Capture a pre-authorisation',
        'Valid only in AUTHORISED_TO_VALIDATE. No body captures the held amount; `{"amount": x}` captures part of it.',
        CaptureBody,
      ),
    },
    async (request, reply) => {
      const c = caller(request);
      const id = requestId(request.params.uuid);
      const body = request.body as Static<typeof CaptureBody> | undefined;
      return withIdempotency(repos, request, reply, c, async () => ({
        status: 200,
        body: await commands.capture(c, id, body?.amount, apiActor(c), retryKeyOf(request)),
      }));
    },
  );

  app.post(
    '/payment-requests/:uuid/release/',
    { schema: actionSchema('Release a pre-authorisation', 'Valid only in AUTHORISED_TO_VALIDATE; the hold is freed.') },
    async (request, reply) => {
      const c = caller(request);
      const id = requestId(request.params.uuid);
      return withIdempotency(repos, request, reply, c, async () => ({
        status: 200,
        body: await commands.release(c, id, apiActor(c), retryKeyOf(request)),
      }));
    },
  );

  app.post(
    '/payment-requests/:uuid/cancel/',
    {
      schema: actionSchema(
        'Cancel a payment request',
        'Allowed for NOT_INITIATED, PENDING and ERROR. A captured payment is refunded in the administration interface.',
      ),
    },
    async (request, reply) => {
      const c = caller(request);
      const id = requestId(request.params.uuid);
      return withIdempotency(repos, request, reply, c, async () => ({
        status: 200,
        body: await commands.cancel(c, id, apiActor(c)),
      }));
    },
  );

  app.delete(
    '/payment-requests/:uuid/',
    {
      schema: {
        tags: TAG,
        summary: 'Delete a payment request permanently',
        description:
          'Refused (400) while money is held (AUTHORISED_TO_VALIDATE) or has moved (CAPTURED, REFUNDED). Cancellation is preferred: it keeps the history.',
        params: UuidParams,
        response: { 200: MessageBody, 400: ErrorBody, ...authErrors, ...notFound, 409: ErrorBody },
      },
    },
    async (request) => {
      const c = caller(request);
      const id = requestId(request.params.uuid);
      const { reference } = await commands.delete(c, id, apiActor(c));
      return { message: `Payment request ${reference} deleted.` };
    },
  );
};

/** The caller's Idempotency-Key (checked by withIdempotency): a retry is the same money operation. */
function retryKeyOf(request: FastifyRequest): { retryKey?: string } {
  const key = request.headers['idempotency-key'];
  return typeof key === 'string' && key !== '' ? { retryKey: key } : {};
}
