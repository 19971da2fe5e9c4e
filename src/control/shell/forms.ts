import type { FastifyRequest } from 'fastify';
import { type TSchema, type TString, Type } from 'typebox';
import { controlNotFound } from './context.ts';

/**
 * The pieces of the back office's route schemas. A form posts urlencoded text (a field sent
 * twice arrives as an array), a query string is text too: every field is a string, optional
 * unless the route cannot do without it, and checked further by the handler where the domain
 * decides (an amount, a date in the hotel's zone). The schema runs after the back office's own
 * checks (signed in, the role, the CSRF token, no control characters). Routes declare
 * `attachValidation: true` when their page answers a bad form itself (re-rendered with each
 * field's message); without it the refusal is the back office's error page (422), as for any
 * other bad request.
 */
export const Form = {
  /** Text up to `maxLength` characters (the length a column or a sane form field allows). */
  text: (maxLength = 500) => Type.String({ maxLength }),
  optionalText: (maxLength = 500) => Type.Optional(Type.String({ maxLength })),
  /**
   * One of a closed list (a select, a radio group), typed as that list: a union built from a
   * mapped array would reach the handler as `never`.
   */
  choice: <const T extends readonly string[]>(values: T) =>
    Type.Unsafe<T[number]>(Type.Union(values.map((v) => Type.Literal(v)))),
  /** A field a form may repeat (checkboxes of one name): one value or several. */
  many: <T extends TSchema = TString>(item: T = Type.String({ maxLength: 200 }) as TSchema as T) =>
    Type.Optional(Type.Union([item, Type.Array(item)])),
  /** The CSRF token every state-changing form carries (checked by the CSRF hook, not here). */
  csrf: Type.Optional(Type.String({ maxLength: 200 })),
};

/** A form's field that may be repeated, as a list (none: empty). */
export function listOf(value: string | readonly string[] | undefined): string[] {
  return value === undefined ? [] : typeof value === 'string' ? [value] : [...value];
}

/**
 * The fields of the request a failed validation names (a wrong, missing or too long value),
 * for a page that shows each field's message. Empty when the request passed its schema.
 */
export function invalidFields(request: FastifyRequest): Set<string> {
  const fields = new Set<string>();
  for (const issue of request.validationError?.validation ?? []) {
    const missing = (issue.params as { missingProperty?: unknown }).missingProperty;
    const name = typeof missing === 'string' ? missing : issue.instancePath.split('/')[1];
    if (name) fields.add(name);
  }
  return fields;
}

/**
 * The fields a request's schema refused, for a handler that answers them itself (a route with
 * `attachValidation`). A refused path parameter or hotel names nothing there is: 404, as an
 * unknown id; a body refused as a whole (none at all) is the error page's 422. Empty: the
 * request passed its schema.
 */
export function refusedFields(request: FastifyRequest): Set<string> {
  const err = request.validationError;
  if (!err) return new Set();
  const fields = invalidFields(request);
  if (err.validationContext === 'params' || fields.has('tenant')) throw controlNotFound();
  if (fields.size === 0) throw err;
  return fields;
}

/** For a route with nothing to re-render: any refusal is the error page (or a 404, as above). */
export function refuseInvalid(request: FastifyRequest): void {
  if (refusedFields(request).size > 0) throw request.validationError;
}
