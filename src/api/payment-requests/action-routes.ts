import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { errors, MONEY_REASONS, moveReason } from '../../domain/index.ts';
import { validationWith } from '../error-handler.ts';
import { withIdempotency } from '../idempotency.ts';
import {
  ActionResponse,
  authErrors,
  CaptureBody,
  ErrorBody,
  errorResponse,
  type MoveBody,
  okResponse,
  RefundBody,
  UuidParams,
} from '../schemas.ts';
import {
  apiActor,
  BAD_PATH,
  BODY_ERRORS,
  caller,
  heldByAnother,
  IdempotencyHeaders,
  notFound,
  postErrors,
  requestId,
  TAG,
} from './route-parts.ts';

/**
 * What a POST on one request answers: a body only for the money moves that take an amount,
 * whose refusals then add their own amount error and invalid_reason; the provider's answers
 * (402, 502, 504 in doubt) for all.
 */
function actionSchema(operationId: string, summary: string, description: string, body?: unknown, amountError?: string) {
  return {
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
  };
}

/** A money move with an amount and a reason: the same route for both, but for its command. */
interface MoneyMove {
  action: 'capture' | 'refund';
  operationId: string;
  summary: string;
  description: string;
  body: typeof CaptureBody | typeof RefundBody;
  /** The 400 of an amount the command refuses. */
  amountError: string;
}

/** The POSTs on one request: capture, release, cancel, refund (registered in that order). */
export const actionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { repos, commands } = app.payreq;

  /**
   * Capture and refund, one handler: the body read (amount, reason and note; a reason off the
   * list is its own 400), the caller's Idempotency-Key kept as the operation's retry key (a
   * retry of a call in doubt is the same operation), the command's outcome the answer.
   */
  const moneyMoveRoute = (move: MoneyMove) =>
    app.post(
      `/payment-requests/:uuid/${move.action}/`,
      {
        schema: actionSchema(move.operationId, move.summary, move.description, move.body, move.amountError),
        attachValidation: true,
      },
      async (request, reply) => {
        const body = moveBody(request);
        const c = caller(request);
        const id = requestId(request.params.uuid);
        return withIdempotency(repos, request, reply, c, async () => ({
          status: 200,
          body: await commands[move.action](c, id, body?.amount, apiActor(c), {
            ...retryKeyOf(request),
            why: moveReason(body?.reason, body?.note),
          }),
        }));
      },
    );

  moneyMoveRoute({
    action: 'capture',
    operationId: 'capturePaymentRequest',
    summary: 'Capture a pre-authorisation',
    description:
      'Valid only in AUTHORISED_TO_VALIDATE. No body captures the held amount; `{"amount": x}` captures part of it. `reason` (and `note`) say why, e.g. `{"reason": "no_show"}`.',
    body: CaptureBody,
    amountError: 'capture_amount_too_high',
  });

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
  moneyMoveRoute({
    action: 'refund',
    operationId: 'refundPaymentRequest',
    summary: 'Refund a captured payment',
    description:
      'Valid only in CAPTURED. No body refunds all that is left to refund; `{"amount": x}` refunds part of it. The last cent back makes the request REFUNDED; a partial refund keeps it CAPTURED with `amount_refunded` raised (event `payment_request.partially_refunded`). Not part of the original integration contract: an addition.',
    body: RefundBody,
    amountError: 'refund_amount_invalid',
  });
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
