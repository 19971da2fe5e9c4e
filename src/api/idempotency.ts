import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Repositories } from '../db/index.js';
import { type AppError, errors } from '../domain/index.js';
import type { ApiCaller } from './authenticator.js';
import { sendError, toAppError } from './error-handler.js';

export interface RouteResult {
  status: number;
  body: unknown;
}

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * Runs a POST handler at most once per `Idempotency-Key` (DESIGN.md 5). The key is claimed by a
 * unique row before the handler runs, so two concurrent retries cannot both run it: the second
 * sees the claim and gets 409 until the first finishes, then the stored response. The same key
 * with another body is a 422. A 5xx or a 409 is not stored: a retry must be able to run.
 */
export async function withIdempotency(
  repos: Repositories,
  request: FastifyRequest,
  reply: FastifyReply,
  caller: ApiCaller,
  run: () => Promise<RouteResult>,
): Promise<FastifyReply> {
  const key = request.headers['idempotency-key'];
  if (key === undefined) return sendResult(reply, await run());
  if (typeof key !== 'string' || !KEY_PATTERN.test(key)) throw errors.invalidIdempotencyKey();

  const raw = (request as FastifyRequest & { rawBody?: string }).rawBody ?? '';
  const fingerprint = createHash('sha256').update(`${request.method} ${request.url}\n${raw}`).digest('hex');
  if (!(await repos.idempotency.claim(caller.tenantId, key, fingerprint))) {
    const stored = await repos.idempotency.find(caller.tenantId, key);
    if (!stored) throw errors.idempotencyInProgress(); // released between our two reads: let the client retry
    if (stored.fingerprint !== fingerprint) throw errors.idempotencyMismatch();
    if (stored.status_code === null || stored.response_body === null) throw errors.idempotencyInProgress();
    reply.header('idempotent-replayed', 'true');
    return reply.code(stored.status_code).type('application/json; charset=utf-8').send(stored.response_body);
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
  const serialized = reply.serializeInput(result.body as Record<string, unknown>, String(result.status)) as string;
  await repos.idempotency.complete(caller.tenantId, key, result.status, serialized);
  return reply.code(result.status).type('application/json; charset=utf-8').send(serialized);
}

function errorBody(e: AppError) {
  return { error: e.message, code: e.code, ...e.extra };
}

export function sendResult(reply: FastifyReply, r: RouteResult): FastifyReply {
  return reply.code(r.status).send(r.body);
}
