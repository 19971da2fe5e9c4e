import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import type { Actor } from '../domain/index.ts';
import {
  errors,
  type FieldIssue,
  isIsoDate,
  isTimestampInRange,
  isUuid,
  MONEY_REASONS,
  moveReason,
  type RequestType,
  type Status,
  TIMESTAMP_RANGE_MESSAGE,
} from '../domain/index.ts';
import { noHoldWillBePlaced } from '../holds/index.ts';
import type { ApiCaller } from './authenticator.ts';
import { createRefusal, type SchemaIssue, statedByCreateRules } from './create-body-check.ts';
import { validationWith } from './error-handler.ts';
import { withIdempotency, withKeyInStatement } from './idempotency.ts';
import { decodeCursor, encodeCursor } from './list-cursor.ts';
import { paymentLink, presentDetail, presentStatus } from './presenters.ts';
import {
  ActionResponse,
  authErrors,
  CaptureBody,
  CreateBody,
  DETAIL_EXAMPLE,
  ErrorBody,
  errorResponse,
  IN_DOUBT_SAMPLE,
  InProgressErrorBody,
  ListQuery,
  MessageBody,
  type MoveBody,
  okResponse,
  PaymentRequestDetail,
  PaymentRequestResponse,
  PaymentRequestStatus,
  RefundBody,
  StatusesQuery,
  UuidParams,
  ValidationErrorBody,
} from './schemas.ts';

export const MAX_REFS = 500;
/** What the JSON body reader refuses before any schema sees the body (api/json-body.ts). */
const BODY_ERRORS = ['invalid_json', 'invalid_utf8', 'json_too_deep', 'forbidden_json_key'];
const TAG = ['payment-requests'];
const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({ description: 'Retry safely: the same key and body within 24 h replays the first response' }),
  ),
});
const notFound = {
  404: errorResponse(
    ErrorBody,
    'No payment request of this tenant has this uuid (or it was deleted); `route_not_found` when the path segment is too long to be a uuid (answered before any route)',
    ['not_found', 'route_not_found'],
  ),
};
/** A path with a malformed percent-encoding (`/%zz/`) in place of the uuid: the router's 400. */
const BAD_PATH = 'bad_url';
/** What can go wrong with any POST that carries a body or an Idempotency-Key. */
const postErrors = {
  409: errorResponse(ErrorBody, 'Another call is working on this request or with this Idempotency-Key; retry shortly', [
    'operation_in_progress',
    'idempotency_key_in_progress',
  ]),
  413: errorResponse(ErrorBody, 'The body is larger than 64 KiB', ['payload_too_large']),
  415: errorResponse(ErrorBody, 'A body was sent with another Content-Type than application/json', [
    'unsupported_media_type',
  ]),
  422: errorResponse(
    ValidationErrorBody,
    'A field is missing or invalid, or the Idempotency-Key was used for another body',
    ['validation_failed', 'idempotency_key_reused'],
  ),
};

/**
 * The 409 of a command on one request: another operation holds it, and `in_doubt` names that
 * one when its outcome is unknown (only its own retry may answer 504).
 */
const heldByAnother = (keyed: boolean) =>
  errorResponse(
    InProgressErrorBody,
    'Another operation holds this request: its call is under way, or its outcome is in doubt (`in_doubt` names it; nothing was sent for this call)' +
      (keyed ? ', or the first call with this Idempotency-Key is still running' : ''),
    keyed ? ['operation_in_progress', 'idempotency_key_in_progress'] : ['operation_in_progress'],
    IN_DOUBT_SAMPLE,
  );

function caller(request: FastifyRequest): ApiCaller {
  const c = request.caller;
  if (!c) throw errors.unauthorized();
  return c;
}

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

/** What a valid create should still know: it is accepted, and answered with these. */
function createWarnings(body: Static<typeof CreateBody>): { warnings?: { code: string; message: string }[] } {
  const checkin = body.reservation_data?.checkin;
  const held = {
    request_type: body.request_type,
    checkin: isIsoDate(checkin) ? checkin : null,
    status: 'NOT_INITIATED',
  };
  if (!noHoldWillBePlaced(held)) return {};
  return {
    warnings: [
      {
        code: 'no_hold_will_be_placed',
        message:
          'This IMPRINT has no reservation_data.checkin: the card will be registered, but no hold will ever be placed, so nothing can be captured on a no-show',
      },
    ],
  };
}

const apiActor = (c: ApiCaller): Actor => ({ source: 'api', actor: `key:${c.keyPrefix}` });

/** A path uuid that is not a UUID names no request: 404 like any unknown one . */
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
        operationId: 'createPaymentRequest',
        summary: 'Create a payment request',
        description:
          'Creates an IMPRINT or a DEPOSIT in status NOT_INITIATED and answers its `payment_link`; the `Location` header names the new request. Send an `Idempotency-Key` so that a retry after a timeout or a 5xx cannot create a second request.',
        headers: IdempotencyHeaders,
        body: CreateBody,
        response: {
          201: okResponse(PaymentRequestResponse, 'Created; `Location` is the URL of the new request'),
          400: errorResponse(ErrorBody, 'A DEPOSIT without an amount above 0, malformed JSON or Idempotency-Key', [
            'deposit_amount_required',
            ...BODY_ERRORS,
            'invalid_idempotency_key',
          ]),
          ...authErrors,
          ...postErrors,
          422: errorResponse(
            ValidationErrorBody,
            'A field is missing or invalid, the Idempotency-Key was used for another body, or the hotel has no payment account yet',
            ['validation_failed', 'idempotency_key_reused', 'provider_not_configured'],
          ),
          429: errorResponse(ErrorBody, 'More creates per minute than this key may make; wait for `Retry-After`', [
            'rate_limited',
          ]),
        },
      },
      // A schema refusal reaches the handler, which adds the field rules' own issues (above).
      attachValidation: true,
      onSend: async (_request, reply, payload) => {
        // Every 201, first answer or replay, names the new request: its uuid is in the body.
        if (reply.statusCode === 201 && typeof payload === 'string') {
          const uuid = /"uuid":"([0-9a-f-]{36})"/.exec(payload)?.[1];
          if (uuid) reply.header('location', `${config.publicBaseUrl}/api/payment-requests/${uuid}/`);
        }
        return payload;
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
      // A refusal the command's own rules make too (the DEPOSIT's amount, the amount's range and
      // decimals, a stay's date) is theirs to answer, under the key; anything else, now.
      const refused = (request.validationError as { validation?: SchemaIssue[] } | undefined)?.validation;
      if (refused && !refused.every(statedByCreateRules)) throw createRefusal(refused, request.body);
      const c = caller(request);
      // No sandbox to fall back on (PAYMENT_PROVIDER=lyra or stripe, as production runs): a tenant
      // with no real account could never be paid. Read with the API key (same query, same cache).
      if (config.paymentProvider !== 'sandbox' && !c.realProvider) throw errors.providerNotConfigured();
      const warnings = createWarnings(request.body);
      // A keyed create stores its key and response in its one statement (withKeyInStatement).
      return withKeyInStatement(repos, request, reply, c, {
        async run() {
          const created = await commands.create(c, request.body, apiActor(c));
          return { status: 201, body: { ...created, payment_link: paymentLink(created.uuid), ...warnings } };
        },
        async runWithKey(k) {
          const created = await commands.createWithKey(c, request.body, apiActor(c), (uuid) => {
            // The response as it will be sent, but for the reference: the sequence gives it in SQL.
            const body = {
              uuid,
              reference: k.placeholder,
              status: 'NOT_INITIATED',
              payment_link: paymentLink(uuid),
              ...warnings,
            };
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
    async (request) => {
      const c = caller(request);
      const id = requestId(request.params.uuid);
      const row = await repos.paymentRequests.find(c.tenantId, id);
      if (!row) throw errors.notFound(id);
      return presentDetail(row);
    },
  );

  const actionSchema = (
    operationId: string,
    summary: string,
    description: string,
    body?: unknown,
    amountError?: string,
  ) => ({
    tags: TAG,
    operationId,
    summary,
    description,
    params: UuidParams,
    headers: IdempotencyHeaders,
    ...(body ? { body } : {}),
    response: {
      200: okResponse(ActionResponse, 'Done; the new status'),
      400: errorResponse(
        ErrorBody,
        body
          ? 'Not allowed in the current status, an amount above what may move, a reason not on the list, or a malformed call'
          : 'Not allowed in the current status, or a malformed call',
        [
          'invalid_status',
          ...(amountError ? [amountError, 'invalid_reason'] : []),
          ...BODY_ERRORS,
          'invalid_idempotency_key',
          BAD_PATH,
        ],
      ),
      ...authErrors,
      ...notFound,
      ...postErrors,
      409: heldByAnother(true),
      402: errorResponse(ErrorBody, 'The provider refused the operation (e.g. the authorisation ended)', [
        'provider_refused',
      ]),
      502: errorResponse(ErrorBody, 'The provider could not be reached; nothing was changed, retry later', [
        'provider_unavailable',
      ]),
      504: errorResponse(
        ErrorBody,
        'The provider did not answer in time: this operation may have happened. Retry with the same Idempotency-Key, or read the request later (another call on the request meanwhile gets 409 with `in_doubt`)',
        ['outcome_unknown'],
      ),
    },
  });

  app.post(
    '/payment-requests/:uuid/capture/',
    {
      schema: actionSchema(
        'capturePaymentRequest',
        'Capture a pre-authorisation',
        'Valid only in AUTHORISED_TO_VALIDATE. No body captures the held amount; `{"amount": x}` captures part of it. `reason` (and `note`) say why, e.g. `{"reason": "no_show"}`.',
        CaptureBody,
        'capture_amount_too_high',
      ),
      attachValidation: true,
    },
    async (request, reply) => {
      const body = moveBody(request);
      const c = caller(request);
      const id = requestId(request.params.uuid);
      return withIdempotency(repos, request, reply, c, async () => ({
        status: 200,
        body: await commands.capture(c, id, body?.amount, apiActor(c), {
          ...retryKeyOf(request),
          why: moveReason(body?.reason, body?.note),
        }),
      }));
    },
  );

  app.post(
    '/payment-requests/:uuid/release/',
    {
      schema: actionSchema(
        'releasePaymentRequest',
        'Release a pre-authorisation',
        'Valid only in AUTHORISED_TO_VALIDATE; the hold is freed and the request becomes CANCELLED.',
      ),
    },
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
        'cancelPaymentRequest',
        'Cancel a payment request',
        'Allowed for NOT_INITIATED, PENDING and ERROR. A captured payment is refunded instead (POST refund/, or the administration interface).',
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

  // Beyond the integration contract, which leaves refunds to the back office: a PMS that cancels
  // a stay must be able to give the deposit back itself. Same rules, ledger and in-doubt
  // handling as the back office's refund (one command serves both).
  app.post(
    '/payment-requests/:uuid/refund/',
    {
      schema: actionSchema(
        'refundPaymentRequest',
        'Refund a captured payment',
        'Valid only in CAPTURED. No body refunds all that is left to refund; `{"amount": x}` refunds part of it. The last cent back makes the request REFUNDED; a partial refund keeps it CAPTURED with `amount_refunded` raised (event `payment_request.partially_refunded`). Not part of the original integration contract: an addition.',
        RefundBody,
        'refund_amount_invalid',
      ),
      attachValidation: true,
    },
    async (request, reply) => {
      const body = moveBody(request);
      const c = caller(request);
      const id = requestId(request.params.uuid);
      return withIdempotency(repos, request, reply, c, async () => ({
        status: 200,
        body: await commands.refund(c, id, body?.amount, apiActor(c), {
          ...retryKeyOf(request),
          why: moveReason(body?.reason, body?.note),
        }),
      }));
    },
  );

  app.delete(
    '/payment-requests/:uuid/',
    {
      schema: {
        tags: TAG,
        operationId: 'deletePaymentRequest',
        summary: 'Delete a payment request permanently',
        description:
          'Refused (400) while money is held (AUTHORISED_TO_VALIDATE) or has moved (CAPTURED, REFUNDED). Cancellation is preferred: it keeps the history.',
        params: UuidParams,
        response: {
          200: okResponse(MessageBody, 'Deleted; the message names the reference'),
          400: errorResponse(
            ErrorBody,
            'Money is held or has moved: release, capture or refund instead; or the path holds a malformed percent-encoding',
            ['cannot_delete', BAD_PATH],
          ),
          ...authErrors,
          ...notFound,
          409: heldByAnother(false),
        },
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

/**
 * A capture's or refund's body once its schema passed. A reason off the list is its own 400
 * (invalid_reason, naming the list), whatever else is wrong: the caller's code has a word the
 * service does not know, not a field to fix; any other refusal is the usual 422.
 */
function moveBody(request: FastifyRequest): MoveBody | null | undefined {
  const err = request.validationError as (Error & { validation?: { instancePath?: string }[] }) | undefined;
  if (err) {
    if (err.validation?.some((v) => v.instancePath === '/reason')) throw errors.invalidReason(MONEY_REASONS);
    throw validationWith(err, []);
  }
  return request.body as MoveBody | null | undefined;
}

/** The caller's Idempotency-Key (checked by withIdempotency): a retry is the same money operation. */
function retryKeyOf(request: FastifyRequest): { retryKey?: string } {
  const key = request.headers['idempotency-key'];
  return typeof key === 'string' && key !== '' ? { retryKey: key } : {};
}
