/**
 * Finishes the OpenAPI document @fastify/swagger builds from the route schemas, so that
 * generated clients and linters get a complete contract:
 * - a schema with a `title` becomes a named component (components.schemas) referred to by $ref;
 * - an error response (x-error-codes) becomes its named shape narrowed to the codes it can carry;
 * - response headers (Location, Link, Retry-After) and media-type examples are added;
 * - `refs` is required and names at least one reference (a character other than a comma or a
 *   space): the route answers 400 refs_required otherwise;
 * - the Idempotency-Key header says what the service accepts (1 to 255 visible ASCII
 *   characters), and a replayed answer its `Idempotent-Replayed: true` header;
 * - a body that may be left out (capture, refund: all of it) is not required.
 */
type Json = Record<string, unknown>;

const ERROR_CODES = 'x-error-codes';
const RESPONSE_DESCRIPTION = 'x-response-description';

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Drops the keys only Fastify or this transform use (x-*), and TypeBox's own markers (~kind). */
function clean(schema: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k.startsWith('~') || k === RESPONSE_DESCRIPTION || k === ERROR_CODES) continue;
    out[k] = v;
  }
  return out;
}

class Components {
  readonly schemas: Record<string, Json> = {};

  /** Replaces named schemas by references, depth first, registering each name once. */
  hoist(node: unknown, isRoot = false): unknown {
    if (Array.isArray(node)) return node.map((n) => this.hoist(n));
    if (!isObject(node)) return node;
    const codes = node[ERROR_CODES];
    if (Array.isArray(codes) && typeof node.title === 'string') {
      // The named shape keeps its own example; this response's example names one of its codes.
      const { examples, ...shape } = clean(node);
      const ref = this.hoist(shape);
      return {
        allOf: [ref, { type: 'object', required: ['code'], properties: { code: { type: 'string', enum: codes } } }],
        examples,
      };
    }
    const walked: Json = {};
    for (const [k, v] of Object.entries(clean(node))) {
      // `examples` and `default` hold data, not schemas: a value there is never a reference.
      walked[k] = k === 'examples' || k === 'default' || k === 'example' ? v : this.hoist(v);
    }
    if (isRoot || typeof node.title !== 'string') return walked;
    const name = node.title;
    const { description: _ignored, ...body } = walked;
    this.schemas[name] ??= body;
    return { $ref: `#/components/schemas/${name}` };
  }
}

const OPERATIONS = ['get', 'post', 'put', 'delete', 'patch'] as const;

/** Operations whose body may be left out: a capture of the whole hold, a refund of all that is left. */
const OPTIONAL_BODY = new Set(['capturePaymentRequest', 'refundPaymentRequest']);

/** What the service accepts as an Idempotency-Key (api/idempotency.ts), portable to any regex engine. */
const IDEMPOTENCY_KEY: Json = { minLength: 1, maxLength: 255, pattern: '^[!-~]+$' };

/**
 * What `refs` must hold for the route not to answer 400 refs_required: a character that is
 * neither NUL, a comma, nor what String.prototype.trim() removes (ECMAScript's white space and
 * line terminators, listed: `\s` differs between regex dialects, Rust's lacks U+FEFF).
 */
const SEPARATORS = ',\\t\\n\\v\\f\\r \\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000\\uFEFF';
export const REFS_PATTERN = `^[^\\x00]*[^\\x00${SEPARATORS}][^\\x00]*$`;

const REPLAYED: Json = {
  description: '`true` when this is the stored answer of an earlier call with the same Idempotency-Key and body',
  schema: { type: 'string', enum: ['true'] },
};

const HEADERS: Record<string, Record<string, Json>> = {
  '201': {
    Location: { description: 'URL of the created payment request', schema: { type: 'string', format: 'uri' } },
  },
  '429': {
    'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } },
  },
};

function firstExample(components: Components, schema: unknown): unknown {
  if (!isObject(schema)) return undefined;
  if (schema.type === 'array' && schema.items) {
    const item = firstExample(components, schema.items);
    return item === undefined ? undefined : [item];
  }
  const ref = typeof schema.$ref === 'string' ? components.schemas[schema.$ref.split('/').pop() as string] : schema;
  const examples = ref?.examples;
  return Array.isArray(examples) ? examples[0] : undefined;
}

/** The operations (GET) whose full page names the next one in a `Link` header. */
const PAGED = new Set(['/api/payment-requests/', '/api/events/']);

/** Completes the document in place. */
export function completeDocument(doc: { paths?: unknown; components?: object }): void {
  const components = new Components();
  const paths = (doc.paths ?? {}) as Record<string, Record<string, Json>>;
  for (const [path, item] of Object.entries(paths)) {
    for (const method of OPERATIONS) {
      const op = item[method];
      if (!op) continue;
      const hoisted = components.hoist(op, true) as Json;
      const responses = (hoisted.responses ?? {}) as Record<string, Json>;
      for (const [status, response] of Object.entries(responses)) {
        const headers = { ...(HEADERS[status] ?? {}) };
        // The two paged lists: the requests and the event feed.
        if (PAGED.has(path) && method === 'get' && status === '200') {
          headers.Link = {
            description: 'RFC 8288 link to the next page (rel="next"), absent on the last page',
            schema: { type: 'string' },
          };
        }
        if (Object.keys(headers).length > 0) response.headers = { ...((response.headers as Json) ?? {}), ...headers };
        addExample(components, response.content);
      }
      const body = hoisted.requestBody as Json | undefined;
      if (body) addExample(components, body.content);
      if (body && OPTIONAL_BODY.has(String(hoisted.operationId))) body.required = false;
      let keyed = false;
      for (const p of (hoisted.parameters ?? []) as Json[]) {
        if (p.name === 'refs' && p.in === 'query') {
          p.required = true;
          p.schema = { ...(p.schema as Json), minLength: 1, pattern: REFS_PATTERN };
        }
        if (p.name === 'idempotency-key' && p.in === 'header') {
          keyed = true;
          p.schema = { ...(p.schema as Json), ...IDEMPOTENCY_KEY };
        }
      }
      if (keyed) {
        for (const [status, response] of Object.entries(responses)) {
          if (!status.startsWith('2')) continue;
          response.headers = { ...((response.headers as Json) ?? {}), 'Idempotent-Replayed': REPLAYED };
        }
      }
      item[method] = hoisted;
    }
  }
  const existing = (doc.components ?? {}) as Json;
  doc.components = { ...existing, schemas: { ...((existing.schemas as Json) ?? {}), ...components.schemas } };
}

function addExample(components: Components, content: unknown): void {
  if (!isObject(content)) return;
  for (const media of Object.values(content)) {
    if (!isObject(media) || media.example !== undefined) continue;
    const example = firstExample(components, media.schema);
    if (example !== undefined) media.example = example;
  }
}
