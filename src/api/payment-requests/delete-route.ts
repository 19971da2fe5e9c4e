import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { authErrors, ErrorBody, errorResponse, MessageBody, okResponse, UuidParams } from '../schemas.ts';
import { apiActor, BAD_PATH, caller, heldByAnother, notFound, requestId, TAG } from './route-parts.ts';

/** DELETE /payment-requests/:uuid/: gone for good, refused while money is held or has moved. */
export const deleteRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { commands } = app.payreq;

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
