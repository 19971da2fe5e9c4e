import type { FastifyInstance, FastifyReply } from 'fastify';
import { emailOutboxRepository } from '../db/index.ts';
import { mailListPage, mailPage } from './dev-mail-pages.ts';

/** The newest messages the list shows. */
const LIST_LIMIT = 200;

/**
 * The viewer's pages: no script; inline styles only (its own, and the e-mails', which are
 * written with inline styles as mail programs want). An e-mail's HTML is served on its own
 * address, framed by the message page only (same origin), in a sandbox: nothing in it runs.
 */
const PAGE_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; frame-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";
const MAIL_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' https: data:; form-action 'none'; frame-ancestors 'self'; base-uri 'none'; sandbox";

function send(reply: FastifyReply, body: string, policy: string, framing: 'DENY' | 'SAMEORIGIN') {
  return reply
    .type('text/html; charset=utf-8')
    .header('content-security-policy', policy)
    .header('x-frame-options', framing)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-store')
    .send(body);
}

/** An outbox id as the address carries it: digits only, or no such message. */
const isId = (id: string) => /^[1-9]\d{0,17}$/.test(id);

/**
 * `/dev/mail`, `/dev/mail/<id>` and `/dev/mail/<id>/html`: the e-mails payreq sent, as the guest
 * and the hotel read them. The app registers these routes only when NODE_ENV=development: in
 * production and in tests they do not exist (404), and the worker keeps no message to show.
 */
export async function devMailRoutes(app: FastifyInstance): Promise<void> {
  const outbox = () => emailOutboxRepository(app.payreq.db);
  const notFound = (reply: FastifyReply) =>
    reply.code(404).type('text/plain; charset=utf-8').send('No such e-mail: see /dev/mail');

  app.get('/dev/mail', { schema: { hide: true } }, async (_request, reply) =>
    send(reply, mailListPage(await outbox().devMessages(LIST_LIMIT)), PAGE_POLICY, 'DENY'),
  );

  app.get<{ Params: { id: string } }>('/dev/mail/:id', { schema: { hide: true } }, async (request, reply) => {
    const row = isId(request.params.id) ? await outbox().devMessage(request.params.id) : undefined;
    if (!row) return notFound(reply);
    return send(reply, mailPage(row), PAGE_POLICY, 'DENY');
  });

  app.get<{ Params: { id: string } }>('/dev/mail/:id/html', { schema: { hide: true } }, async (request, reply) => {
    const row = isId(request.params.id) ? await outbox().devMessage(request.params.id) : undefined;
    if (!row) return notFound(reply);
    return send(reply, row.message.html, MAIL_POLICY, 'SAMEORIGIN');
  });
}
