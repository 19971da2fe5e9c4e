import type { FastifyInstance } from 'fastify';

/** The sandbox provider's own pages, under `/sandbox/`, as if it were external (being built). */
export async function sandboxRoutes(_app: FastifyInstance): Promise<void> {}
