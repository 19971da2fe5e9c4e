import { hash, randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Repositories } from '../db/index.ts';
import { type AppError, errors } from '../domain/index.ts';
import type { ApiCaller } from './authenticator.ts';
import { sendError, toAppError } from './error-handler.ts';

export interface RouteResult {
  status: number;
  body: unknown;
}

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** The request's `Idempotency-Key`, undefined without one; a malformed one is a 400. */
function keyOf(request: FastifyRequest): string | undefined {
  const key = request.headers['idempotency-key'];
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || !KEY_PATTERN.test(key)) throw errors.invalidIdempotencyKey();
  return key;
}

/** Tells one request from another under the same key: method, path and the body as sent. */
function fingerprintOf(request: FastifyRequest): string {
  const raw = (request as FastifyRequest & { rawBody?: string }).rawBody ?? '';
  // One-shot: no Hash object to build and update for a text that is hashed once, on every create.
  return hash('sha256', `${request.method} ${request.url}\n${raw}`, 'hex');
}

/**
 * Runs a POST handler at most once per `Idempotency-Key`. The key is claimed by a
 * unique row before the handler runs, so two concurrent retries cannot both run it: the second
 * sees the claim and gets 409 until the first finishes, then the stored response. The same key
 * with another body is a 422, from the first call on. A 5xx or a 409 is not stored: the same
 * request retried runs again (an operation in doubt then answers its true outcome), while the
 * key stays bound to that request's body.
 */
export async function withIdempotency(
  repos: Repositories,
  request: FastifyRequest,
  reply: FastifyReply,
  caller: ApiCaller,
  run: () => Promise<RouteResult>,
): Promise<FastifyReply> {
  const key = keyOf(request);
  if (key === undefined) return sendResult(reply, await run());
  const fingerprint = fingerprintOf(request);
  if (!(await repos.idempotency.claim(caller.tenantId, key, fingerprint, `${request.method} ${request.url}`))) {
    return answerFromStored(repos, reply, caller, key, fingerprint);
  }

  let result: RouteResult;
  try {
    result = await run();
  } catch (err) {
    const e = toAppError(err as never);
    if (e.httpStatus >= 500 || e.httpStatus === 409) {
      await repos.idempotency.release(caller.tenantId, key);
      throw err;
    }
    await repos.idempotency.complete(caller.tenantId, key, e.httpStatus, JSON.stringify(errorBody(e)));
    return sendError(reply, e);
  }
  // Store what the client will receive, serialised by the route's response schema.
  const serialized = serialize(reply, result);
  await repos.idempotency.complete(caller.tenantId, key, result.status, serialized);
  return sendSerialized(reply, result.status, serialized);
}

/** What a handler needs to store its key, with its response, in the statement doing its work. */
export interface StatementKey {
  key: string;
  fingerprint: string;
  /** A random token, new for each request, to stand in the response for a value the SQL fills in. */
  placeholder: string;
  /** `body` serialised as the route sends it with `status` (its response schema). */
  serialize(status: number, body: unknown): string;
}

/**
 * What a handler given a StatementKey did: stored the key with `serialized`, which is sent as
 * it is (the stored bytes are the sent bytes), or nothing because the key was not free.
 */
export type StatementOutcome = { status: number; serialized: string } | 'key-not-free';

/**
 * The same guarantees as withIdempotency for a handler that stores the key and its response
 * in the one statement that does its work (the create: CREATE_SQL, or CREATE_MANY_SQL for
 * creates made at once), instead of claiming the key
 * before and completing it after: one round trip instead of three. That statement writes
 * nothing when the key is held, and a concurrent one waits on the first's key row, so the work
 * still runs at most once per key. When it wrote nothing, the stored row answers as in
 * withIdempotency: replay, 422 for another body, 409 while in progress.
 *
 * An error raised before the statement (a refused body) is stored and replayed as
 * withIdempotency does; a 5xx or a 409 is not stored, and the statement, rolled back, left
 * nothing either.
 */
export async function withKeyInStatement(
  repos: Repositories,
  request: FastifyRequest,
  reply: FastifyReply,
  caller: ApiCaller,
  handlers: { run: () => Promise<RouteResult>; runWithKey: (key: StatementKey) => Promise<StatementOutcome> },
): Promise<FastifyReply> {
  const key = keyOf(request);
  if (key === undefined) return sendResult(reply, await handlers.run());
  const fingerprint = fingerprintOf(request);

  let outcome: StatementOutcome;
  try {
    outcome = await handlers.runWithKey({
      key,
      fingerprint,
      // randomUUID draws from a cached entropy pool: randomBytes cost a syscall per create.
      placeholder: `@@reference-${randomUUID()}@@`,
      serialize: (status, body) => serialize(reply, { status, body }),
    });
  } catch (err) {
    const e = toAppError(err as never);
    if (e.httpStatus >= 500 || e.httpStatus === 409) throw err;
    if (await repos.idempotency.store(caller.tenantId, key, fingerprint, e.httpStatus, JSON.stringify(errorBody(e)))) {
      return sendError(reply, e);
    }
    return answerFromStored(repos, reply, caller, key, fingerprint);
  }
  if (outcome === 'key-not-free') return answerFromStored(repos, reply, caller, key, fingerprint);
  return sendSerialized(reply, outcome.status, outcome.serialized);
}

/** The key is held by an earlier request: its stored answer, or why there is none to give. */
async function answerFromStored(
  repos: Repositories,
  reply: FastifyReply,
  caller: ApiCaller,
  key: string,
  fingerprint: string,
): Promise<FastifyReply> {
  const stored = await repos.idempotency.find(caller.tenantId, key);
  if (!stored) throw errors.idempotencyInProgress(); // released between our two reads: let the client retry
  if (stored.fingerprint !== fingerprint) throw errors.idempotencyMismatch(stored.request_line);
  if (stored.status_code === null || stored.response_body === null) throw errors.idempotencyInProgress();
  reply.header('idempotent-replayed', 'true');
  return sendSerialized(reply, stored.status_code, stored.response_body);
}

function serialize(reply: FastifyReply, r: RouteResult): string {
  return reply.serializeInput(r.body as Record<string, unknown>, String(r.status)) as string;
}

function sendSerialized(reply: FastifyReply, status: number, serialized: string): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send(serialized);
}

function errorBody(e: AppError) {
  return { error: e.message, code: e.code, ...e.extra };
}

export function sendResult(reply: FastifyReply, r: RouteResult): FastifyReply {
  return reply.code(r.status).send(r.body);
}
