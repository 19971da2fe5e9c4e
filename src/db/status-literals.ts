import type { Status } from '../domain/index.ts';

/**
 * Statuses written into a statement's text as literals, not sent as a parameter: a partial
 * index on some statuses (the open links, the live holds) serves only a condition PostgreSQL
 * can prove from the text, and a prepared statement planned once for any parameter (a generic
 * plan, which the plan cache may choose after five runs) could not use it. They come from the
 * code (the transition table, a constant list), never from input: a status is a word of
 * capitals, anything else is refused.
 */
export function statusLiterals(statuses: readonly Status[]): string {
  if (statuses.length === 0 || !statuses.every((s) => /^[A-Z_]+$/.test(s))) {
    throw new Error(`not a list of statuses: ${statuses.join(',')}`);
  }
  return statuses.map((s) => `'${s}'`).join(', ');
}
