import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { CREATE_SQL, createParams, type Database, repositories } from '../src/db/index.ts';
import type { NewPaymentRequest } from '../src/domain/index.ts';
import { findGuestRequest } from '../src/guest/guest-request.ts';

export interface Listening {
  url: string;
  close(): Promise<void>;
}

interface CreateBody {
  request_type: 'IMPRINT' | 'DEPOSIT';
  amount: number;
  currency: 'EUR';
  guest_email: string;
  guest_first_name: string;
  guest_last_name: string;
  guest_phone: string;
  language: 'fr' | 'en' | 'de';
  reservation_ref: string;
  reservation_data: Record<string, unknown>;
}

/**
 * The bare baseline: a minimal Fastify app on the same driver running the same SQL as the
 * service's routes, on the same paths, with no authentication (the key only picks the tenant
 * from a map), no validation, no schemas, no rate limit, no logging. What is left is HTTP,
 * JSON and the database: the most a Fastify service on this driver can do.
 */
export async function startBaseline(db: Database, tenantOfKey: Map<string, string>): Promise<Listening> {
  const app = Fastify({ logger: false });
  const repos = repositories(db);
  const tenant = (headers: Record<string, unknown>) => tenantOfKey.get(String(headers['x-api-key'])) as string;
  const year = new Date().getFullYear();

  app.post('/api/payment-requests/', async (request, reply) => {
    const b = request.body as CreateBody;
    const p: NewPaymentRequest = {
      requestType: b.request_type,
      amountCents: Math.round(b.amount * 100),
      currency: b.currency,
      guestEmail: b.guest_email,
      guestFirstName: b.guest_first_name,
      guestLastName: b.guest_last_name,
      guestPhone: b.guest_phone,
      language: b.language,
      reservationRef: b.reservation_ref,
      reservationData: b.reservation_data,
      checkin: typeof b.reservation_data?.checkin === 'string' ? b.reservation_data.checkin : null,
    };
    const id = randomUUID();
    // The same statement as the service's keyed create, Idempotency-Key row included; the
    // stored body is a bare template, without the service's serialisation and fingerprint.
    const key = String(request.headers['idempotency-key']);
    const placeholder = `@@reference-${id}@@`;
    const params = createParams(
      id,
      tenant(request.headers),
      p,
      { year, linkLifetimeDays: 30, actor: { source: 'api', actor: 'key:baseline' }, emailLink: true },
      { key, fingerprint: key, template: `{"uuid":"${id}","reference":"${placeholder}"}`, placeholder },
    );
    const r = await db.query<{ reference: string }>(CREATE_SQL, params);
    return reply.code(201).send({ uuid: id, reference: r.rows[0]?.reference });
  });
  app.get('/api/payment-requests/', async (request) =>
    repos.paymentRequests.list(tenant(request.headers), { limit: 101 }),
  );
  app.get('/api/payment-requests/statuses/', async (request) =>
    repos.paymentRequests.statuses(
      tenant(request.headers),
      String((request.query as { refs: string }).refs).split(','),
    ),
  );
  app.get('/api/payment-requests/:uuid/', async (request) =>
    repos.paymentRequests.find(tenant(request.headers), (request.params as { uuid: string }).uuid),
  );
  app.get('/payment/:id/', async (request) => findGuestRequest(db, (request.params as { id: string }).id));

  await app.listen({ host: '127.0.0.1', port: 0 });
  const a = app.server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${a.port}`, close: () => app.close() };
}
