import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  errors,
  type FieldIssue,
  isTimestampInRange,
  type RequestType,
  type Status,
  TIMESTAMP_RANGE_MESSAGE,
} from '../../domain/index.ts';
import { decodeCursor, encodeCursor } from '../list-cursor.ts';
import { presentDetail, presentStatus } from '../presenters.ts';
import {
  authErrors,
  DETAIL_EXAMPLE,
  ErrorBody,
  errorResponse,
  ListQuery,
  okResponse,
  PaymentRequestDetail,
  PaymentRequestStatus,
  StatusesQuery,
  UuidParams,
  ValidationErrorBody,
} from '../schemas.ts';
import { BAD_PATH, caller, notFound, requestId, TAG } from './route-parts.ts';

export const MAX_REFS = 500;

/** The created_after / created_before filters as dates, refused (422) outside the accepted range. */
function dateFilters(q: ListQuery): { createdAfter?: Date; createdBefore?: Date; updatedAfter?: Date } {
  const issues: FieldIssue[] = [];
  const read = (field: 'created_after' | 'created_before' | 'updated_after') => {
    const raw = q[field];
    if (raw === undefined) return undefined;
    const d = new Date(raw);
    if (!isTimestampInRange(d)) issues.push({ field, message: TIMESTAMP_RANGE_MESSAGE });
    return d;
  };
  const createdAfter = read('created_after');
  const createdBefore = read('created_before');
  const updatedAfter = read('updated_after');
  if (issues.length > 0) throw errors.validation(issues);
  return { createdAfter, createdBefore, updatedAfter };
}

/** The reads: the list (by creation, or by change with updated_after), the statuses of some reservations, one request. */
export const readRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { repos, config } = app.payreq;

  app.get(
    '/payment-requests/',
    {
      schema: {
        tags: TAG,
        operationId: 'listPaymentRequests',
        summary: 'List payment requests, newest first',
        description:
          'A bare array, newest first; with `updated_after`, the requests changed since then, oldest change first. When more rows exist, the `Link` header (RFC 8288) carries the next page URL with rel="next": follow it until it is absent.',
        querystring: ListQuery,
        response: {
          200: okResponse(
            Type.Array(PaymentRequestDetail, { examples: [[DETAIL_EXAMPLE]] }),
            'One page of requests; `Link` names the next page when there is one',
          ),
          400: errorResponse(ErrorBody, 'The cursor is not one this service gave', ['invalid_cursor']),
          ...authErrors,
          422: errorResponse(ValidationErrorBody, 'A filter has a value outside its list or format', [
            'validation_failed',
          ]),
        },
      },
    },
    async (request, reply) => {
      const c = caller(request);
      const q = request.query;
      const limit = q.limit ?? 100;
      const changed = q.updated_after !== undefined;
      const filter = {
        status: q.status as Status | undefined,
        requestType: q.request_type as RequestType | undefined,
        reservationRef: q.reservation_ref,
      };
      const dates = dateFilters(q);
      // With updated_after the order is by change, oldest first, so a sync can resume where it
      // stopped; the cursor then names the last (updated_at, id) seen.
      const rows = changed
        ? await repos.events.changedSince(c.tenantId, {
            ...filter,
            updatedAfter: dates.updatedAfter as Date,
            after: q.cursor ? decodeCursor(q.cursor) : undefined,
            limit: limit + 1,
          })
        : await repos.paymentRequests.list(c.tenantId, {
            ...filter,
            createdAfter: dates.createdAfter,
            createdBefore: dates.createdBefore,
            before: q.cursor ? decodeCursor(q.cursor) : undefined,
            limit: limit + 1,
          });
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      if (rows.length > limit && last) {
        const next = new URLSearchParams();
        for (const [k, v] of Object.entries(q)) if (v !== undefined && k !== 'cursor') next.set(k, String(v));
        next.set('cursor', encodeCursor(changed ? last.updated_at : last.created_at, last.id));
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
        operationId: 'getPaymentRequestStatuses',
        summary: 'Statuses of the requests of some reservations',
        description: `Unknown references are absent from the answer; every request of a reservation appears. At most ${MAX_REFS} references.`,
        querystring: StatusesQuery,
        response: {
          200: okResponse(Type.Array(PaymentRequestStatus), 'The requests of these reservations, in no set order'),
          400: errorResponse(ErrorBody, '`refs` is missing, empty or names too many references', [
            'refs_required',
            'too_many_refs',
          ]),
          ...authErrors,
          422: errorResponse(
            ValidationErrorBody,
            '`refs` holds text the service cannot store or compare (a NUL, an unpaired surrogate)',
            ['validation_failed'],
          ),
          431: errorResponse(
            ErrorBody,
            'The request line and headers together are over 64 KiB (a `refs` of non-ASCII references, each sent as %XX escapes, can be)',
            ['headers_too_large'],
          ),
        },
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
        operationId: 'getPaymentRequest',
        summary: 'Detail of a payment request',
        description: 'Everything about one request but the guest phone and language.',
        params: UuidParams,
        response: {
          200: okResponse(PaymentRequestDetail, 'The request'),
          400: errorResponse(ErrorBody, 'The path holds a malformed percent-encoding', [BAD_PATH]),
          ...authErrors,
          ...notFound,
        },
      },
    },
    async (request, reply) => {
      const c = caller(request);
      const id = requestId(request.params.uuid);
      // Already JSON, written by the database from the same table of fields as the schema
      // above: sent as it is (a string with a JSON type is not serialized again).
      const detail = await repos.paymentRequests.findDetailJson(c.tenantId, id);
      if (detail === undefined) throw errors.notFound(id);
      return reply.type('application/json; charset=utf-8').send(detail);
    },
  );
};
