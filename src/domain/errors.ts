import type { Status } from './statuses.ts';

/**
 * The closed catalogue of errors the service answers with. Each has a stable code, an HTTP
 * status and a message; one Fastify error handler turns them into responses (api/errors.ts).
 * Anything not in here is a 500 that says nothing about its cause.
 */
export interface FieldIssue {
  field: string;
  message: string;
  /** A stable name of the problem, where a page words it in its own language. */
  code?: string;
}

export class AppError extends Error {
  readonly code: string;
  readonly httpStatus: number;
  readonly extra: Record<string, unknown>;
  constructor(code: string, httpStatus: number, message: string, extra: Record<string, unknown> = {}) {
    super(message);
    this.code = code;
    this.httpStatus = httpStatus;
    this.extra = extra;
    this.name = 'AppError';
  }
}

/** An operation whose outcome nobody knows yet, as a 409 `operation_in_progress` names it. */
export interface InDoubtOperation {
  /** capture, release, refund or hold. */
  action: string;
  /** Currency units; absent where the operation moves no amount (a release). */
  amount?: number;
  currency: string;
  /** When it was asked of the provider (ISO 8601). */
  requested_at: string;
}

export const errors = {
  validation: (details: FieldIssue[]) => new AppError('validation_failed', 422, 'Validation failed', { details }),
  depositAmountRequired: () =>
    new AppError('deposit_amount_required', 400, 'DEPOSIT requests require an amount greater than 0'),
  notFound: (uuid: string) => new AppError('not_found', 404, `Payment request ${uuid} not found.`),
  routeNotFound: () => new AppError('route_not_found', 404, 'Not found'),
  methodNotAllowed: (method: string, allow: readonly string[]) =>
    new AppError('method_not_allowed', 405, `${method} is not allowed here: ${allow.join(', ')} (the Allow header)`, {
      allowed_methods: allow,
    }),
  /** A framework refusal with no name of ours: its status, never its internal code. */
  badRequest: (status: number, message: string) => new AppError('bad_request', status, message),
  cannotCancelTerminal: (status: Status, allowed: readonly Status[]) =>
    new AppError('invalid_status', 400, 'Cannot cancel a payment request in terminal status', { status, allowed }),
  invalidStatus: (action: string, status: Status, allowed: readonly Status[]) =>
    new AppError(
      'invalid_status',
      400,
      `Cannot ${action} a payment request in status ${status} (allowed: ${allowed.join(', ')})`,
      { status, allowed },
    ),
  cannotDelete: (status: Status, why: string) =>
    new AppError('cannot_delete', 400, `Cannot delete a payment request in status ${status}: ${why}`, { status }),
  /**
   * The request is claimed by another operation. When that one is in doubt, the body names it
   * (`in_doubt`): nothing was sent for this call, and only a retry of that operation itself,
   * under its own Idempotency-Key, may answer 504 outcome_unknown.
   */
  operationInProgress: (action: string, inDoubt?: InDoubtOperation) =>
    inDoubt
      ? new AppError(
          'operation_in_progress',
          409,
          `A ${inDoubt.action} on this payment request is in doubt (the provider's answer was lost: it may have happened). Nothing was sent for this call; read the request later, or retry that ${inDoubt.action} with its own Idempotency-Key`,
          { in_doubt: inDoubt },
        )
      : new AppError(
          'operation_in_progress',
          409,
          `Another operation (${action}) is in progress on this payment request; retry shortly`,
        ),
  captureAmountTooHigh: (heldCents: number) =>
    new AppError('capture_amount_too_high', 400, 'Capture amount exceeds the held amount', {
      held_amount: heldCents / 100,
    }),
  refundAmountInvalid: (leftCents: number) =>
    new AppError('refund_amount_invalid', 400, 'Refund amount must be above 0 and at most what is left to refund', {
      refundable_amount: leftCents / 100,
    }),
  /** A capture's or refund's reason that is not on the closed list (domain/money-reasons.ts). */
  invalidReason: (allowed: readonly string[]) =>
    new AppError('invalid_reason', 400, `reason must be one of ${allowed.join(', ')}`, { allowed }),
  refsRequired: () => new AppError('refs_required', 400, 'Query parameter refs is required'),
  tooManyRefs: (max: number) => new AppError('too_many_refs', 400, `At most ${max} references are allowed in refs`),
  badCursor: () => new AppError('invalid_cursor', 400, 'Invalid pagination cursor'),
  badUrl: () => new AppError('bad_url', 400, 'Malformed URL'),
  invalidJson: () => new AppError('invalid_json', 400, 'Request body is not valid JSON'),
  /** Parsers differ on which of two equal keys wins (most keep the last, silently). */
  duplicateJsonKey: (key: string) =>
    new AppError(
      'invalid_json',
      400,
      `Request body is not valid JSON for this API: the key ${JSON.stringify(key.slice(0, 64))} appears twice in one object`,
    ),
  invalidUtf8: () => new AppError('invalid_utf8', 400, 'Request body is not valid UTF-8'),
  jsonTooDeep: (maxDepth: number) =>
    new AppError('json_too_deep', 400, `Request body nests objects or arrays deeper than ${maxDepth} levels`, {
      max_depth: maxDepth,
    }),
  forbiddenJsonKey: () =>
    new AppError('forbidden_json_key', 400, 'Request body must not contain __proto__ or constructor.prototype keys'),
  unsupportedMediaType: () => new AppError('unsupported_media_type', 415, 'Content-Type must be application/json'),
  payloadTooLarge: () => new AppError('payload_too_large', 413, 'Request body is too large'),
  unauthorized: () => new AppError('unauthorized', 401, 'Unauthorized'),
  keyRevoked: () => new AppError('api_key_revoked', 403, 'API key revoked'),
  keyExpired: () => new AppError('api_key_expired', 403, 'API key expired'),
  idempotencyMismatch: (original?: string | null) =>
    new AppError(
      'idempotency_key_reused',
      422,
      `Idempotency-Key was already used with a different request${original ? ` (${original})` : ''}`,
      {
        details: [
          {
            field: 'Idempotency-Key',
            message: original ? `already used for ${original} with another body` : 'already used with another request',
            code: 'not_allowed',
          },
        ],
      },
    ),
  idempotencyInProgress: () =>
    new AppError('idempotency_key_in_progress', 409, 'A request with this Idempotency-Key is still in progress'),
  invalidIdempotencyKey: () =>
    new AppError('invalid_idempotency_key', 400, 'Idempotency-Key must be 1 to 255 visible ASCII characters'),
  rateLimited: (retryAfterSeconds: number) =>
    new AppError('rate_limited', 429, `Rate limit exceeded, retry in ${retryAfterSeconds} s`),
  // The hint is for whoever tries a production configuration by hand over plain HTTP: the cause
  // and both ways out, named as the configuration names them (nothing secret).
  httpsRequired: () =>
    new AppError(
      'https_required',
      403,
      'HTTPS required: with NODE_ENV=production this service answers HTTPS only. Behind a proxy that ends TLS, set TRUST_PROXY to it so its X-Forwarded-Proto is believed; for a local try over plain HTTP, run with NODE_ENV=development',
    ),
  providerUnavailable: () =>
    new AppError('provider_unavailable', 502, 'The payment provider is unavailable; nothing was changed, retry later'),
  outcomeUnknown: () =>
    new AppError(
      'outcome_unknown',
      504,
      'The payment provider did not answer in time; the operation may have happened. Retry the same call with the same Idempotency-Key, or read the request later',
    ),
  providerRefused: (reason: string) => new AppError('provider_refused', 402, `The payment provider refused: ${reason}`),
  databaseUnavailable: () =>
    new AppError('database_unavailable', 503, 'The service is temporarily unavailable; retry shortly'),
  serviceStopping: () =>
    new AppError('service_stopping', 503, 'This instance is stopping; retry shortly (another instance will answer)'),
  /** Production: a tenant with no real provider account cannot take payments, so nothing is created. */
  providerNotConfigured: () =>
    new AppError(
      'provider_not_configured',
      422,
      'This establishment has no payment provider account yet; no payment request can be created',
      // The 422 body's shape: no field of the request is at fault.
      { details: [] },
    ),
  internal: () => new AppError('internal_error', 500, 'Internal server error'),
} as const;
