import fc from 'fast-check';

/**
 * Values a JSON schema of the OpenAPI document accepts, as fast-check arbitraries: what a
 * client that validates with the document could send. Covers what the document's request
 * schemas use (types and type lists, enum and const, lengths, patterns made of a character
 * class, formats date, date-time and email, numeric bounds with multipleOf, objects with
 * required and optional properties). Mostly valid rather than always: a caller keeps the values
 * the document's own validator accepts (OpenApiContract), which is the judge.
 */

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Text a person or a PMS could send: any well-formed Unicode, now and then some ASCII. */
const text = (maxLength: number, minLength = 0) =>
  fc.oneof(
    fc.string({ unit: 'grapheme', minLength, maxLength: Math.min(maxLength, 40) }),
    fc.string({ minLength, maxLength: Math.min(maxLength, 40) }),
  );

/** A calendar date, YYYY-MM-DD, years `from` to 9999. */
const isoDate = (from = 100) =>
  fc
    .date({ min: new Date(Date.UTC(from, 0, 1)), max: new Date(Date.UTC(9999, 11, 31)), noInvalidDate: true })
    .map((d) => d.toISOString().slice(0, 10));

export function schemaArbitrary(schema: unknown, root: object, depth = 0): fc.Arbitrary<unknown> {
  const doc = root as Json;
  if (!isObject(schema)) return fc.constant(null);
  if (typeof schema.$ref === 'string') {
    const target = schema.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>(
        (node, key) => (isObject(node) ? node[key.replaceAll('~1', '/').replaceAll('~0', '~')] : undefined),
        doc,
      );
    return schemaArbitrary(target, doc, depth);
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    // The document's request schemas use allOf only to narrow: the first part gives the shape.
    return schemaArbitrary(schema.allOf[0], doc, depth);
  }
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if (Array.isArray(schema.type)) {
    return fc.oneof(...(schema.type as string[]).map((type) => schemaArbitrary({ ...schema, type }, doc, depth)));
  }
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : -1_000;
      const max = typeof schema.maximum === 'number' ? schema.maximum : 1_000_000;
      return fc.integer({ min: Math.max(min, -1e9), max: Math.min(max, 1e12) });
    }
    case 'number': {
      const low =
        typeof schema.exclusiveMinimum === 'number'
          ? schema.exclusiveMinimum
          : typeof schema.minimum === 'number'
            ? schema.minimum
            : -1_000_000;
      const high = typeof schema.maximum === 'number' ? schema.maximum : 1_000_000;
      if (schema.multipleOf === 0.01) {
        // Cents, as a decimal: small amounts mostly, the bounds now and then.
        const lowCents = Math.round(low * 100) + (typeof schema.exclusiveMinimum === 'number' ? 1 : 0);
        const highCents = Math.round(high * 100);
        return fc
          .oneof(
            fc.integer({ min: lowCents, max: Math.min(highCents, lowCents + 100_000) }),
            fc.integer({ min: lowCents, max: highCents }),
            fc.constantFrom(lowCents, highCents),
          )
          .map((cents) => cents / 100);
      }
      return fc.double({ min: low, max: high, noNaN: true, noDefaultInfinity: true });
    }
    case 'string': {
      const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : 200;
      const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
      if (schema.format === 'date') return isoDate();
      if (schema.format === 'date-time') {
        return fc
          .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-12-31T00:00:00Z'), noInvalidDate: true })
          .map((d) => d.toISOString());
      }
      if (schema.format === 'email') return fc.emailAddress().filter((e) => e.length <= maxLength);
      if (typeof schema.pattern === 'string') {
        const pattern = new RegExp(schema.pattern, 'u');
        return fc.oneof(
          text(maxLength, minLength).filter((s) => pattern.test(s)),
          fc.stringMatching(pattern).filter((s) => s.length >= minLength && s.length <= maxLength),
        );
      }
      return text(maxLength, minLength);
    }
    case 'array': {
      const items = schemaArbitrary(schema.items ?? {}, doc, depth + 1);
      return fc.array(items, { maxLength: typeof schema.maxItems === 'number' ? schema.maxItems : 3 });
    }
    case 'object':
      return objectArbitrary(schema, doc, depth);
    default:
      // No type: any JSON value, shallow.
      return depth > 2 ? fc.constant(null) : fc.oneof(fc.integer(), fc.boolean(), text(20));
  }
}

function objectArbitrary(schema: Json, doc: object, depth: number): fc.Arbitrary<unknown> {
  const properties = (isObject(schema.properties) ? schema.properties : {}) as Json;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const parts: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties)) parts[name] = schemaArbitrary(property, doc, depth + 1);
  const requiredKeys = Object.keys(parts).filter((k) => required.has(k));
  const known = fc.record(parts, { requiredKeys }) as fc.Arbitrary<Json>;
  if (schema.additionalProperties !== true || depth > 2) return known;
  // Free JSON beside the known keys (reservation_data): plain values, keys that are text.
  const extra = fc.dictionary(
    fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !(k in properties)),
    fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.boolean(), fc.constant(null)),
    { maxKeys: 3 },
  );
  return fc.tuple(known, extra).map(([k, e]) => ({ ...e, ...k }));
}
