import type { RouteOptions } from 'fastify';

interface PathRule {
  pattern: RegExp;
  methods: Set<string>;
}

/** A route's path as a regular expression of the paths it serves (`:name` is one segment). */
function pathPattern(url: string): RegExp {
  const body = url
    .replace(/\/+$/, '')
    .split('/')
    .map((segment) =>
      segment === '*'
        ? '.*'
        : segment
            .split(/(:[A-Za-z_][\w-]*(?:\([^)]*\))?|\*)/)
            .map((part, i) =>
              i % 2 === 1 ? (part === '*' ? '.*' : '[^/]+') : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
            )
            .join(''),
    )
    .join('/');
  return new RegExp(`^${body}$`);
}

/**
 * The methods each known path answers, learnt from the routes as they are registered: a
 * request the router found no route for is a 405 with `Allow` when its path is known under
 * other methods, a 404 otherwise. Read only on that path (a request that matched no route).
 */
export function allowedMethods(): { learn(route: RouteOptions): void; of(path: string): string[] } {
  const rules = new Map<string, PathRule>();
  return {
    learn(route) {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      // Trailing slashes are ignored by the router (ignoreTrailingSlash): one rule for both.
      const key = route.url.replace(/\/+$/, '') || '/';
      const rule = rules.get(key) ?? { pattern: pathPattern(route.url), methods: new Set<string>() };
      for (const m of methods) rule.methods.add(m.toUpperCase());
      rules.set(key, rule);
    },
    of(path) {
      const plain = (path.split('?')[0] ?? '').replace(/\/+$/, '');
      const found = new Set<string>();
      for (const rule of rules.values()) {
        if (rule.pattern.test(plain)) for (const m of rule.methods) found.add(m);
      }
      return [...found].sort();
    },
  };
}
