/** `http://` or `https://` (any case), a non-empty authority, then the end, a path or a query. */
const ABSOLUTE_FORM = /^https?:\/\/[^/?#]+(?=$|[/?])/i;

/**
 * The request target in origin form (path and query), whatever form the request line used.
 *
 * HTTP/1.1 lets a client name the whole URL in the request line (`GET http://host/path
 * HTTP/1.1`, the absolute form meant for proxies). Fastify's router finds the route by its path
 * either way, but `request.url` kept the whole target, so whatever matches on the path's start
 * saw another path: @fastify/session, scoped to /control, left `request.session` unset and every
 * back-office page was a 500. Rewritten here, before routing, every hook, plugin and handler
 * sees what the origin form gives, and no check on the URL needs to know both forms.
 *
 * The authority is dropped, not believed. payreq serves one site, named by PUBLIC_BASE_URL; it
 * reads no host from a request (its links and redirects are paths), so a target naming another
 * host is answered as payreq's own page, never as that host's. A target that is no http(s) URL
 * (`*`, another scheme, an empty authority) is left as it came: the router refuses it (4xx).
 */
export function originForm(target: string): string {
  if (target.startsWith('/')) return target;
  const authority = ABSOLUTE_FORM.exec(target);
  if (!authority) return target;
  const rest = target.slice(authority[0].length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}
