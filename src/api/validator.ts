import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';
import { isWellFormedText, WELL_FORMED_KEYWORD } from '../domain/index.ts';

/**
 * Two validators: query strings and path parameters are text and are coerced to their
 * declared types; JSON bodies are never coerced, so `"amount": "12"` is the wrong type (422)
 * rather than silently becoming 12.
 */
export function makeAjv(coerce: boolean) {
  const ajv = new Ajv.default({
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: true,
    allErrors: !coerce,
    strict: false,
    // `multipleOf: 0.01` (two decimals) read as the document means it, in decimals: 0.07 is a
    // multiple of 0.01 although 0.07 / 0.01 is 7.000000000000001 in binary floating point.
    multipleOfPrecision: 6,
  });
  addFormats.default(ajv);
  // Text must be well-formed Unicode (no unpaired surrogate): a rule no portable pattern states,
  // so the document says it with this extension keyword (domain: STORABLE_TEXT_PATTERN).
  ajv.addKeyword({
    keyword: WELL_FORMED_KEYWORD,
    schemaType: 'boolean',
    errors: false,
    validate: (on: boolean, data: unknown) => !on || typeof data !== 'string' || isWellFormedText(data),
  });
  return ajv;
}

export function validatorCompiler(): FastifySchemaCompiler<FastifySchema> {
  const coercing = makeAjv(true);
  const strict = makeAjv(false);
  return ({ schema, httpPart }) =>
    (httpPart === 'body' ? strict : coercing).compile(schema as object) as ReturnType<
      FastifySchemaCompiler<FastifySchema>
    >;
}
