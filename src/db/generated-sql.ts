import { createHash } from 'node:crypto';
import { eventTypeFunctionSql, requestDetailFunctionSql } from '../events/index.ts';

/**
 * SQL made from code, which a migration names instead of pasting it: a line
 * `-- payreq:generated NAME sha256=HASH` is replaced, when the migration is applied, by the SQL
 * that NAME's generator writes now. HASH (the first 16 hex digits of that SQL's SHA-256) says
 * which text the migration was written for: a generator whose text changed since makes that
 * migration refuse to apply, so a change needs a new migration naming the new hash (the
 * message gives it), and every database ends with the same text. Only the newest migration
 * that names a generator expands it; an older one is skipped (the newer one replaces what it
 * would define), so a fresh database never runs today's text against an older schema.
 */
export const GENERATORS: Readonly<Record<string, () => string>> = {
  // The request detail every event carries (events/request-detail.ts).
  payment_request_detail: requestDetailFunctionSql,
  // Which event each status change is (events/event-types.ts).
  payment_request_event_type: eventTypeFunctionSql,
};

const DIRECTIVE = /^-- payreq:generated ([a-z_]+) sha256=([0-9a-f]{16})$/gm;

export function generatedHash(sql: string): string {
  return createHash('sha256').update(sql).digest('hex').slice(0, 16);
}

/** The generators a migration's text names, with the hash each was written for. */
export function namedGenerators(text: string): { name: string; hash: string }[] {
  return [...text.matchAll(DIRECTIVE)].map((m) => ({ name: m[1] as string, hash: m[2] as string }));
}

/**
 * A migration's text with its directives expanded: `newest` says, for each generator, the
 * migration file that names it last; this file's directive for another's is dropped.
 */
export function expandGenerated(file: string, text: string, newest: ReadonlyMap<string, string>): string {
  return text.replace(DIRECTIVE, (_line, name: string, hash: string) => {
    const generate = GENERATORS[name];
    if (!generate) throw new Error(`${file}: no SQL generator is named ${name}`);
    if (newest.get(name) !== file) return `-- ${name}: defined by ${newest.get(name)}`;
    const sql = generate();
    const now = generatedHash(sql);
    if (hash !== now) {
      throw new Error(
        `${file}: the SQL of ${name} changed since this migration was written (sha256=${hash}); ` +
          `add a migration with the line "-- payreq:generated ${name} sha256=${now}"`,
      );
    }
    return sql;
  });
}
