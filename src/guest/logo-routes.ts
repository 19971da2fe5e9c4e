import type { FastifyInstance, FastifyReply } from 'fastify';
import { isUuid } from '../domain/index.ts';
import { STATIC_SECURITY_HEADERS } from './security-headers.ts';

const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * `/logo/<tenant-id>/<sha256>`: a hotel's logo, as the guest pages show it. The hash names the
 * bytes, so an answer never changes and is cached for a year; a new logo has a new URL and an
 * old URL answers 404. The type is the one checked from the bytes at upload (PNG, JPEG, WebP),
 * nosniff keeps browsers from guessing another, and a sandbox policy strips any active content
 * should the image be opened on its own.
 */
export async function logoRoutes(app: FastifyInstance): Promise<void> {
  const { repos } = app.payreq;

  app.addHook('onSend', async (_request, reply) => {
    reply.headers(STATIC_SECURITY_HEADERS);
    reply.header('content-security-policy', "default-src 'none'; sandbox");
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
  });

  const notFound = (reply: FastifyReply) => reply.code(404).type('text/plain; charset=utf-8').send('Not found\n');
  app.setNotFoundHandler((_request, reply) => notFound(reply));

  app.get<{ Params: { tenant: string; hash: string } }>('/:tenant/:hash', async (request, reply) => {
    const { tenant, hash } = request.params;
    // Checked before the query: a malformed id must be a 404, never a database error.
    if (!isUuid(tenant) || !SHA256_HEX.test(hash)) return notFound(reply);
    const logo = await repos.tenants.logo(tenant.toLowerCase(), hash);
    if (!logo) return notFound(reply);
    const etag = `"${logo.hash}"`;
    reply.header('cache-control', 'public, max-age=31536000, immutable').header('etag', etag);
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.type(logo.type).send(logo.bytes);
  });
}
