import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { type Actor, errors, isUuid } from '../../domain/index.ts';
import type { ApiCaller } from '../authenticator.ts';
import { ErrorBody, errorResponse, IN_DOUBT_SAMPLE, InProgressErrorBody, ValidationErrorBody } from '../schemas.ts';

// What the routes on payment requests share: their tag, the errors several of them answer, and
// the steps every handler starts with (the caller, the path's uuid, the actor it records).

export const TAG = ['payment-requests'];
/** What the JSON body reader refuses before any schema sees the body (api/json-body.ts). */
export const BODY_ERRORS = ['invalid_json', 'invalid_utf8', 'json_too_deep', 'forbidden_json_key'];
/** A path with a malformed percent-encoding (`/%zz/`) in place of the uuid: the router's 400. */
export const BAD_PATH = 'bad_url';

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({ description: 'Retry safely: the same key and body within 24 h replays the first response' }),
  ),
});

export const notFound = {
  404: errorResponse(
    ErrorBody,
    'No payment request of this tenant has this uuid (or it was deleted); `route_not_found` when the path segment is too long to be a uuid (answered before any route)',
    ['not_found', 'route_not_found'],
  ),
};

/** What can go wrong with any POST that carries a body or an Idempotency-Key. */
export const postErrors = {
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
export const heldByAnother = (keyed: boolean) =>
  errorResponse(
    InProgressErrorBody,
    'Another operation holds this request: its call is under way, or its outcome is in doubt (`in_doubt` names it; nothing was sent for this call)' +
      (keyed ? ', or the first call with this Idempotency-Key is still running' : ''),
    keyed ? ['operation_in_progress', 'idempotency_key_in_progress'] : ['operation_in_progress'],
    IN_DOUBT_SAMPLE,
  );

export function caller(request: FastifyRequest): ApiCaller {
  const c = request.caller;
  if (!c) throw errors.unauthorized();
  return c;
}

export const apiActor = (c: ApiCaller): Actor => ({ source: 'api', actor: `key:${c.keyPrefix}` });

/** A path uuid that is not a UUID names no request: 404 like any unknown one . */
export function requestId(uuid: string): string {
  if (!isUuid(uuid)) throw errors.notFound(uuid.slice(0, 100));
  return uuid.toLowerCase();
}
