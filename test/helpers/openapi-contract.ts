import { createHash } from 'node:crypto';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/**
 * The served OpenAPI document as a checker of what goes over the wire: a response against the
 * operation, status, media type and headers the document gives it; a request body or a query
 * against what the document accepts.
 *
 * The validator is Ajv (draft 2020-12, the dialect of OpenAPI 3.1's schemas) given the whole
 * document, so that every `$ref` resolves into it as any other tool would: the OpenAPI-specific
 * part (finding the operation, the status, the media type, the headers) is the little below.
 * Why Ajv rather than an OpenAPI response-validator package: those on npm either stop at
 * OpenAPI 3.0 (openapi-response-validator and the jest-openapi/chai family built on it: no
 * 3.1, no release since 2024) or support 3.1 only in part with a large footprint
 * (openapi-backend); @seriousme/openapi-schema-validator checks documents, not responses. Ajv
 * is maintained, already the service's own validator, and implements 2020-12 in full.
 */

type Json = Record<string, unknown>;

export interface OpenApiDocument {
  paths: Record<string, Record<string, Json>>;
  components?: Json;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const DOC_ID = 'https://payreq.invalid/openapi.json';

/** A JSON pointer's segment. */
const pointer = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * The `x-well-formed-unicode` extension the document puts on text: no unpaired UTF-16 surrogate
 * (a rule a pattern cannot state in every regex dialect), checked as the service checks it.
 */
const WELL_FORMED = 'x-well-formed-unicode';
const UNPAIRED = /[\uD800-\uDFFF]/u;

export class OpenApiContract {
  readonly doc: OpenApiDocument;
  readonly #ajv: Ajv2020;
  readonly #compiled = new Map<string, ValidateFunction>();
  readonly #routes: { method: string; template: string; pattern: RegExp }[] = [];

  constructor(doc: OpenApiDocument) {
    this.doc = doc;
    // `multipleOf: 0.01` means two decimals in the document's decimal numbers; in binary
    // floating point 0.07 / 0.01 is 7.000000000000001, so the quotient is judged to 1e-6.
    this.#ajv = new Ajv2020({ strict: false, allErrors: true, multipleOfPrecision: 6, validateFormats: true });
    addFormats.default(this.#ajv);
    this.#ajv.addKeyword({
      keyword: WELL_FORMED,
      schemaType: 'boolean',
      validate: (on: boolean, data: unknown) => !on || typeof data !== 'string' || !UNPAIRED.test(data),
    });
    this.#ajv.addSchema(doc as object, DOC_ID);
    for (const [template, item] of Object.entries(doc.paths)) {
      const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+').replaceAll('.', '\\.')}$`);
      for (const method of METHODS) if (item[method]) this.#routes.push({ method, template, pattern });
    }
  }

  /** The document's operation for a method and path (the query string aside), if it has one. */
  operation(method: string, url: string): { template: string; method: string; op: Json } | undefined {
    const path = new URL(url, 'http://x').pathname;
    const m = method.toLowerCase();
    // A literal segment wins over a template one (statuses/ before {uuid}/).
    const found = this.#routes
      .filter((r) => r.method === m && r.pattern.test(path))
      .sort((a, b) => a.template.split('{').length - b.template.split('{').length)[0];
    if (!found) return undefined;
    return { template: found.template, method: m, op: this.doc.paths[found.template]?.[m] as Json };
  }

  #validator(at: string): ValidateFunction {
    let v = this.#compiled.get(at);
    if (!v) {
      v = this.#ajv.compile({ $ref: `${DOC_ID}#${at}` });
      this.#compiled.set(at, v);
    }
    return v;
  }

  #check(at: string, value: unknown, what: string): string[] {
    const v = this.#validator(at);
    if (v(value)) return [];
    return (v.errors ?? []).map((e) => `${what}${e.instancePath} ${e.message} (${e.schemaPath})`);
  }

  /**
   * What is wrong with a response, by the document: [] when it conforms, undefined when the
   * document has no operation for the call (an unknown route, the document itself).
   */
  checkResponse(r: {
    method: string;
    url: string;
    status: number;
    headers: Record<string, unknown>;
    body: string;
  }): string[] | undefined {
    const found = this.operation(r.method, r.url);
    if (!found) return undefined;
    const where = `${found.method.toUpperCase()} ${found.template} ${r.status}`;
    const responses = (found.op.responses ?? {}) as Record<string, Json>;
    const status = [String(r.status), `${String(r.status)[0]}XX`, 'default'].find((s) => responses[s]);
    if (!status) return [`${where}: the document lists no such status (${r.body.slice(0, 200)})`];
    const base = `/paths/${pointer(found.template)}/${found.method}/responses/${status}`;
    const response = responses[status] as Json;
    const problems: string[] = [];
    const content = (response.content ?? {}) as Record<string, Json>;
    const type = String(r.headers['content-type'] ?? '')
      .split(';')[0]
      ?.trim();
    if (Object.keys(content).length > 0) {
      if (!type || !content[type]) {
        problems.push(`${where}: content-type ${type || 'none'} is not one of ${Object.keys(content).join(', ')}`);
      } else if (type.endsWith('json')) {
        let body: unknown;
        try {
          body = JSON.parse(r.body);
        } catch {
          problems.push(`${where}: the body is not JSON`);
        }
        if (body !== undefined) problems.push(...this.#check(`${base}/content/${pointer(type)}/schema`, body, where));
      }
    }
    for (const [name, header] of Object.entries((response.headers ?? {}) as Record<string, Json>)) {
      const raw = r.headers[name.toLowerCase()];
      if (raw === undefined) {
        if (header.required === true) problems.push(`${where}: header ${name} is missing`);
        continue;
      }
      const text = String(raw);
      const schema = (header.schema ?? {}) as Json;
      const value = schema.type === 'integer' || schema.type === 'number' ? Number(text) : text;
      problems.push(...this.#check(`${base}/headers/${pointer(name)}/schema`, value, `${where} header ${name}`));
    }
    return problems;
  }

  /** What the document says of a JSON request body for an operation: [] when it accepts it. */
  checkRequestBody(method: string, url: string, body: unknown): string[] {
    const found = this.operation(method, url);
    if (!found) return [`no operation ${method} ${url}`];
    const at = `/paths/${pointer(found.template)}/${found.method}/requestBody/content/application~1json/schema`;
    return this.#check(at, body, 'body');
  }

  /** What the document says of a query parameter's value: [] when it accepts it. */
  checkParameter(method: string, url: string, name: string, value: unknown): string[] {
    const found = this.operation(method, url);
    if (!found) return [`no operation ${method} ${url}`];
    const params = (found.op.parameters ?? []) as Json[];
    const i = params.findIndex((p) => p.name === name);
    if (i < 0) return [`no parameter ${name}`];
    return this.#check(`/paths/${pointer(found.template)}/${found.method}/parameters/${i}/schema`, value, name);
  }
}

const contracts = new Map<string, OpenApiContract>();

/** One checker per distinct document (compiled schemas are kept between the apps of a process). */
export function contractOf(doc: OpenApiDocument): OpenApiContract {
  const key = createHash('sha256').update(JSON.stringify(doc)).digest('hex');
  let c = contracts.get(key);
  if (!c) {
    c = new OpenApiContract(doc);
    contracts.set(key, c);
  }
  return c;
}
