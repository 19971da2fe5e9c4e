import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { errors, isIsoDate } from '../../domain/index.ts';
import { noHoldWillBePlaced } from '../../holds/index.ts';
import { createRefusal, type SchemaIssue, statedByCreateRules } from '../create-body-check.ts';
import { withKeyInStatement } from '../idempotency.ts';
import { paymentLink } from '../presenters.ts';
import {
  authErrors,
  CreateBody,
  ErrorBody,
  errorResponse,
  okResponse,
  PaymentRequestResponse,
  ValidationErrorBody,
} from '../schemas.ts';
import { apiActor, BODY_ERRORS, caller, IdempotencyHeaders, postErrors, TAG } from './route-parts.ts';

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

/** POST /payment-requests/: a new request, its link, and the warnings a valid one may carry. */
export const createRoute: FastifyPluginAsyncTypebox = async (app) => {
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
};
