/** What the pages show a caller: the forms it may post and the query parameters it may send. */

export type Pairs = [string, string][];

/** A form seen on a page: where it posts, how, and its fields with their values. */
export interface SeenForm {
  action: string;
  multipart: boolean;
  fields: Pairs;
}

/** `/control/requests/:id/:action` as a pattern for the paths it serves. */
export function routePattern(url: string): RegExp {
  const body = url
    .split(/(:\w+|\*)/)
    .map((part) => (part === '*' ? '.*' : part.startsWith(':') ? '[^/]+' : part.replace(/[.?+^$()[\]{}|\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body.replace(/\/$/, '')}/?$`);
}

const decode = (s: string) => s.replaceAll('&amp;', '&').replaceAll('&quot;', '"').replaceAll('&#39;', "'");

/** A query parameter seen on a page: in a GET form or a link, for `path`. */
export interface SeenQuery {
  path: string;
  key: string;
  value: string;
}

/** The forms of one HTML page, and the query parameters of its GET forms and links. */
export function scrape(page: string, forms: SeenForm[], queries: SeenQuery[]): void {
  for (const m of page.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)) {
    const attrs = m[1] ?? '';
    const inner = m[2] ?? '';
    const action = decode(/action="([^"]*)"/.exec(attrs)?.[1] ?? '');
    const method = (/method="([^"]*)"/.exec(attrs)?.[1] ?? 'get').toLowerCase();
    const fields: Pairs = [];
    for (const f of inner.matchAll(/<(?:input|select|textarea|button)\b([^>]*)>/g)) {
      const name = /name="([^"]*)"/.exec(f[1] ?? '')?.[1];
      if (name) fields.push([decode(name), decode(/value="([^"]*)"/.exec(f[1] ?? '')?.[1] ?? '')]);
    }
    if (method === 'post') forms.push({ action, multipart: /multipart\/form-data/.test(attrs), fields });
    else for (const [key, value] of fields) queries.push({ path: action, key, value });
  }
  for (const m of page.matchAll(/href="([^"?]*)\?([^"]*)"/g)) {
    for (const [key, value] of new URLSearchParams(decode(m[2] ?? ''))) {
      queries.push({ path: decode(m[1] ?? ''), key, value });
    }
  }
}
