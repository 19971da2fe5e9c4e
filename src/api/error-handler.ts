import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  AppError,
  EMAIL_PATTERN,
  errors,
  type FieldIssue,
  NAME_TEXT_MESSAGE,
  NAME_TEXT_PATTERN,
  NOTE_TEXT_MESSAGE,
  NOTE_TEXT_PATTERN,
  PLAIN_TEXT_MESSAGE,
  PLAIN_TEXT_PATTERN,
  STORABLE_TEXT_PATTERN,
  UNSTORABLE_TEXT_MESSAGE,
  WELL_FORMED_KEYWORD,
} from '../domain/index.ts';
import { allowedMethods } from './allowed-methods.ts';

/** What a 503 tells the client to wait before retrying. */
export const RETRY_AFTER_SECONDS = 5;

interface AjvIssue {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** A stable name for what the schema refused, so a page can word it in its own language. */
function issueCode(v: AjvIssue): string {
  switch (v.keyword) {
    case 'required':
      return 'required';
    case 'minLength':
      return v.params?.limit === 1 ? 'required' : 'too_short';
    case 'maxLength':
      return 'too_long';
    case 'format':
      return `format_${String(v.params?.format ?? 'invalid')}`;
    case 'enum':
      return 'not_allowed';
    // The amount's rules, as the field rules name them (domain/create-payment-request.ts).
    case 'minimum':
      return 'amount_negative';
    case 'maximum':
      return 'amount_too_large';
    case 'multipleOf':
      return 'amount_decimals';
    case 'pattern':
      if (v.params?.pattern === EMAIL_PATTERN) return 'format_email';
      return v.params?.pattern === PLAIN_TEXT_PATTERN || v.params?.pattern === NAME_TEXT_PATTERN
        ? 'plain_text'
        : 'unstorable_text';
    case WELL_FORMED_KEYWORD:
      return 'unstorable_text';
    default:
      return 'wrong_type';
  }
}

function fieldIssues(validation: AjvIssue[], context: string | undefined): FieldIssue[] {
  const issues = validation.map((v) => {
    const path = (v.instancePath ?? '').replace(/^\//, '').replaceAll('/', '.');
    const missing = v.keyword === 'required' ? String(v.params?.missingProperty ?? '') : '';
    const field = [path, missing].filter(Boolean).join('.') || context || 'body';
    let message = v.message ?? 'is invalid';
    if (v.keyword === 'required') message = 'is required';
    if (v.keyword === 'pattern' && v.params?.pattern === STORABLE_TEXT_PATTERN) message = UNSTORABLE_TEXT_MESSAGE;
    if (v.keyword === 'pattern' && v.params?.pattern === PLAIN_TEXT_PATTERN) message = PLAIN_TEXT_MESSAGE;
    if (v.keyword === 'pattern' && v.params?.pattern === NAME_TEXT_PATTERN) message = NAME_TEXT_MESSAGE;
    if (v.keyword === 'pattern' && v.params?.pattern === NOTE_TEXT_PATTERN) message = NOTE_TEXT_MESSAGE;
    if (v.keyword === 'multipleOf') message = 'must have at most two decimals';
    if (v.keyword === 'pattern' && v.params?.pattern === EMAIL_PATTERN) message = 'must be an e-mail address';
    if (v.keyword === WELL_FORMED_KEYWORD) message = UNSTORABLE_TEXT_MESSAGE;
    if (v.keyword === 'enum' && Array.isArray(v.params?.allowedValues)) {
      message = `must be one of ${(v.params.allowedValues as unknown[]).join(', ')}`;
    }
    return { field, message, code: issueCode(v) };
  });
  // An amount past the maximum is too large, whatever its decimals: past 2^53 cents a double
  // cannot even tell (970595663.56 failed multipleOf), and "at most two decimals" misleads.
  const tooLarge = new Set(issues.filter((i) => i.code === 'amount_too_large').map((i) => i.field));
  return issues.filter((i) => !(i.code === 'amount_decimals' && tooLarge.has(i.field)));
}

/**
 * A schema refusal with more issues found by the route's own field rules, as one 422: the
 * client fixes every field in one round. Where both name a field (the schema states the rule
 * the route checks: the amount's range and decimals, a stay's date), the route's issue says it,
 * once, in its own words and code.
 */
export function validationWith(
  err: { validation?: unknown; validationContext?: string },
  more: FieldIssue[],
): AppError {
  const issues = Array.isArray(err.validation) ? fieldIssues(err.validation, err.validationContext) : [];
  const own = new Map(more.map((i) => [i.field, i]));
  const out: FieldIssue[] = [];
  const named = new Set<string>();
  for (const issue of [...issues, ...more]) {
    const said = own.get(issue.field) ?? issue;
    if (own.has(issue.field) && named.has(issue.field)) continue;
    named.add(issue.field);
    out.push(said);
  }
  return errors.validation(out);
}

/** Every error any client can cause, to its documented status; nothing else leaves a stack trace. */
export function toAppError(err: FastifyError & { validation?: AjvIssue[] }): AppError {
  if (err instanceof AppError) return err;
  if (err.validation) return errors.validation(fieldIssues(err.validation, err.validationContext));
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errors.unsupportedMediaType();
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.payloadTooLarge();
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return errors.invalidJson();
    case 'FST_ERR_BAD_URL':
      return errors.badUrl();
    // A path segment longer than the router accepts names no request: 404 like any unknown one.
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return errors.routeNotFound();
  }
  if (err instanceof SyntaxError) return errors.invalidJson();
  const status = err.statusCode ?? 500;
  // Fastify's own codes (FST_ERR_…) name its internals, not the service's contract.
  if (status >= 400 && status < 500) return errors.badRequest(status, err.message || 'Bad request');
  return errors.internal();
}

export function sendError(reply: FastifyReply, e: AppError): FastifyReply {
  const body: Record<string, unknown> = { error: e.message, code: e.code, ...e.extra };
  // Authentication failures carry both keys, for clients written to either reference.
  if (e.httpStatus === 401 || e.code.startsWith('api_key_')) body.detail = e.message;
  // Error bodies are built here, never by a route's response schema: a route documents its
  // 403 as an auth failure, but an HTTPS refusal is a 403 too and must not fail to serialise.
  return reply.code(e.httpStatus).type('application/json; charset=utf-8').serializer(JSON.stringify).send(body);
}

/**
 * Fastify's router answers a malformed or over-long path itself, before any hook runs; without
 * this it would send its own body shape and no X-Request-Id (the onRequest hook never ran).
 */
export function frameworkErrors(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  sendError(reply, toAppError(err));
}

/**
 * A 503 is temporary (the database is away, the instance is stopping), so every one says when
 * to come back, whoever answered it: the API, a guest or back-office page, the readiness probe.
 * A route that knows better (the guest page when the provider is away) sets its own.
 */
export function installRetryAfter(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, reply, payload) => {
    if (reply.statusCode === 503 && !reply.hasHeader('retry-after')) {
      reply.header('retry-after', String(RETRY_AFTER_SECONDS));
    }
    return payload;
  });
}

export function installErrorHandling(app: FastifyInstance): void {
  const known = allowedMethods();
  app.addHook('onRoute', (route) => known.learn(route));
  /** A request that matched no route: 405 with Allow on a path known under other methods, else 404. */
  const noRoute = (request: FastifyRequest, reply: FastifyReply) => {
    const allow = known.of(request.url);
    if (allow.length === 0) return sendError(reply, errors.routeNotFound());
    reply.header('allow', allow.join(', '));
    return sendError(reply, errors.methodNotAllowed(request.method, allow));
  };
  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    // A method with a body (QUERY) and no Content-Type is refused by Fastify before the
    // not-found handler runs: for a request that matched no route, the answer is that handler's.
    if (err.code === 'FST_ERR_ROUTE_MISSING_CONTENT_TYPE') {
      if (request.is404) return noRoute(request, reply);
      return sendError(reply, errors.unsupportedMediaType());
    }
    const e = toAppError(err);
    if (e.httpStatus >= 500) request.log.error({ err }, 'request failed');
    else request.log.info({ code: e.code, status: e.httpStatus }, 'request refused');
    return sendError(reply, e);
  });
  app.setNotFoundHandler(noRoute);
}
