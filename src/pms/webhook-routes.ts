import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errors } from '../domain/index.ts';
import { pmsRepository } from './pms-repository.ts';
import { secretMatches } from './reservation-events.ts';

const Params = Type.Object({
  tenantId: Type.String({ format: 'uuid' }),
  secret: Type.String({ minLength: 1, maxLength: 100 }),
});

/** A delivery as apaleo.dev's "Webhooks payload" shows it; other fields are Apaleo's, not read. */
const Delivery = Type.Object({
  topic: Type.String({ maxLength: 100 }),
  type: Type.String({ maxLength: 100 }),
  id: Type.Optional(Type.String({ maxLength: 200 })),
  propertyId: Type.Optional(Type.String({ maxLength: 200 })),
  data: Type.Optional(Type.Object({ entityId: Type.Optional(Type.String({ maxLength: 200 })) })),
});

/**
 * `POST /pms/apaleo/<tenant>/<secret>`: Apaleo's reservation events for a hotel whose reservation
 * rule is on (src/pms/reservation-events.ts). The secret in the URL is the only proof (Apaleo
 * signs nothing); a wrong one, or a hotel without the rule, is a 404 and changes nothing. An
 * event is kept once by its id and answered at once (its work is a job of the queue); the
 * subscription's health check and events of other topics or properties are acknowledged.
 */
export async function pmsWebhookRoutes(app: FastifyInstance): Promise<void> {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const repo = pmsRepository(app.payreq.db);
  typed.post(
    '/pms/apaleo/:tenantId/:secret',
    { schema: { hide: true, params: Params, body: Delivery } },
    async (request, reply) => {
      const { tenantId, secret } = request.params;
      const c = await repo.connection(tenantId);
      if (!c || !secretMatches(c, secret)) throw errors.routeNotFound();
      const d = request.body;
      const reservationId = d.data?.entityId;
      const ours = d.propertyId === undefined || d.propertyId === c.property_id;
      if (d.topic.toLowerCase() !== 'reservation' || !reservationId || !d.id || !ours) {
        return reply.code(200).send({ status: 'ignored' });
      }
      const fresh = await repo.addEvent({ tenantId, eventId: d.id, type: d.type, reservationId });
      request.log.info({ tenant: tenantId, event: d.id, type: d.type, fresh }, 'apaleo reservation event');
      return reply.code(200).send({ status: fresh ? 'queued' : 'duplicate' });
    },
  );
}
