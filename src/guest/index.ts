import type { FastifyInstance } from 'fastify';

/** The guest payment page, `/payment/<uuid>/` (payments issue: being built). */
export async function guestRoutes(_app: FastifyInstance): Promise<void> {}
