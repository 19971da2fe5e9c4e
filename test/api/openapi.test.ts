import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { auditResponses, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

const OPERATIONS = [
  ['post', '/api/payment-requests/'],
  ['get', '/api/payment-requests/'],
  ['get', '/api/payment-requests/{uuid}/'],
  ['get', '/api/payment-requests/statuses/'],
  ['post', '/api/payment-requests/{uuid}/capture/'],
  ['post', '/api/payment-requests/{uuid}/release/'],
  ['post', '/api/payment-requests/{uuid}/cancel/'],
  ['post', '/api/payment-requests/{uuid}/refund/'],
  ['delete', '/api/payment-requests/{uuid}/'],
  ['get', '/api/events/'],
] as const;

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

interface OpenApi {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, { responses: Record<string, unknown>; parameters?: { name: string }[] }>>;
  components: { securitySchemes: Record<string, { type: string; in: string; name: string }> };
  security: Record<string, unknown>[];
}

describe(`OpenAPI document and reference page (${ENGINE})`, () => {
  let t: TestApp;
  let doc: OpenApi;
  before(async () => {
    t = await startTestApp();
    const r = await t.call({ method: 'GET', url: '/api/openapi.json', tenant: null });
    assert.equal(r.statusCode, 200);
    doc = r.json();
  });
  after(() => t.close());

  test('GET /api/openapi.json is OpenAPI 3.1, public, JSON', async () => {
    const r = await t.call({ method: 'GET', url: '/api/openapi.json', tenant: null });
    assert.equal(r.statusCode, 200);
    assert.match(String(r.headers['content-type']), /^application\/json/);
    assert.match(doc.openapi, /^3\.1\.\d+$/);
    assert.equal(typeof doc.info.title, 'string');
    assert.equal(typeof doc.info.version, 'string');
  });

  test('lists exactly the operations of the contract, nothing hidden leaks in', () => {
    const listed = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((m) => HTTP_METHODS.includes(m))
        .map((m) => `${m} ${path}`),
    );
    assert.deepEqual(listed.sort(), OPERATIONS.map(([m, p]) => `${m} ${p}`).sort());
  });

  test('every error shape requires `code` and `error`, as every error answer carries them', async () => {
    const named = (doc.components as unknown as { schemas: Record<string, { required?: string[] }> }).schemas;
    for (const name of ['Error', 'InProgressError', 'ValidationError', 'AuthError']) {
      assert.deepEqual(
        ['code', 'error'].filter((k) => !named[name]?.required?.includes(k)),
        [],
        `${name} requires code and error`,
      );
    }
    // And the answers do: a 404, a 401 and a 422, as sent.
    const answers = [
      await t.call({ method: 'GET', url: '/api/payment-requests/6f0c2b1e-4d4a-4c43-9b0e-6a2f9c1d7e55/' }),
      await t.call({ method: 'GET', url: '/api/payment-requests/', tenant: null }),
      await t.call({ method: 'POST', url: '/api/payment-requests/', payload: {} }),
    ];
    assert.deepEqual(
      answers.map((r) => [r.statusCode, typeof r.json().code, typeof r.json().error]),
      [
        [404, 'string', 'string'],
        [401, 'string', 'string'],
        [422, 'string', 'string'],
      ],
    );
  });

  test('documents the X-API-Key scheme, the uuid path parameter and the error statuses', () => {
    const schemes = Object.values(doc.components.securitySchemes);
    assert.ok(
      schemes.some((s) => s.type === 'apiKey' && s.in === 'header' && s.name.toLowerCase() === 'x-api-key'),
      JSON.stringify(schemes),
    );
    assert.ok(doc.security.length > 0);
    for (const [method, path] of OPERATIONS) {
      const op = doc.paths[path]?.[method];
      assert.ok(op, `${method} ${path}`);
      assert.ok(op.responses['401'], `${method} ${path} documents 401`);
      if (path.includes('{uuid}')) {
        assert.ok(
          op.parameters?.some((p) => p.name === 'uuid'),
          `${method} ${path} has the uuid parameter`,
        );
        assert.ok(op.responses['404'], `${method} ${path} documents 404`);
      }
    }
    assert.ok(doc.paths['/api/payment-requests/']?.post?.responses['201']);
    assert.ok(doc.paths['/api/payment-requests/']?.post?.responses['422']);
  });

  test('the capture body is documented as optional, and the provider outcomes 402 and 502', () => {
    const capture = doc.paths['/api/payment-requests/{uuid}/capture/']?.post as unknown as {
      requestBody: { required: boolean };
      responses: Record<string, unknown>;
    };
    assert.equal(capture.requestBody.required, false);
    assert.ok(capture.responses['402'] && capture.responses['502']);
  });

  test('what the service does is what the document says: body errors, the key, optional bodies, replays, tags', () => {
    type Op = {
      requestBody?: { required: boolean };
      parameters?: { name: string; in: string; schema: { pattern?: string; maxLength?: number } }[];
      responses: Record<string, { headers?: Record<string, unknown>; content?: unknown }>;
      tags?: string[];
    };
    const op = (path: string, method: string) => doc.paths[path]?.[method] as unknown as Op;
    const codes = (o: Op, status: string) => JSON.stringify(o.responses[status]?.content ?? '');
    for (const [path, method] of [
      ['/api/payment-requests/', 'post'],
      ['/api/payment-requests/{uuid}/capture/', 'post'],
      ['/api/payment-requests/{uuid}/refund/', 'post'],
    ] as const) {
      const o = op(path, method);
      for (const code of ['invalid_json', 'invalid_utf8', 'json_too_deep', 'forbidden_json_key']) {
        assert.ok(codes(o, '400').includes(`"${code}"`), `${method} ${path}: 400 ${code}`);
      }
      const key = o.parameters?.find((p) => p.name === 'idempotency-key' && p.in === 'header');
      assert.deepEqual([key?.schema.pattern, key?.schema.maxLength], ['^[!-~]+$', 255], `${path}: the key's rule`);
      const ok = o.responses[method === 'post' && path.endsWith('/') && !path.includes('{') ? '201' : '200'];
      assert.ok(ok?.headers?.['Idempotent-Replayed'], `${path}: the replay header`);
    }
    assert.equal(
      op('/api/payment-requests/{uuid}/refund/', 'post').requestBody?.required,
      false,
      'no body refunds all',
    );
    assert.ok(codes(op('/api/payment-requests/statuses/', 'get'), '422').includes('"validation_failed"'));
    const declared = (doc as unknown as { tags?: { name: string }[] }).tags?.map((t) => t.name) ?? [];
    for (const [method, path] of OPERATIONS) {
      for (const tag of op(path, method).tags ?? []) assert.ok(declared.includes(tag), `${method} ${path}: tag ${tag}`);
    }
  });

  test('the detail schema has every field of the contract and neither guest_phone nor language', () => {
    const op = doc.paths['/api/payment-requests/{uuid}/']?.get as unknown as {
      responses: { 200: { content: Record<string, { schema: { $ref: string } }> } };
    };
    const ref = Object.values(op.responses[200].content)[0]?.schema.$ref ?? '';
    const named = (doc.components as unknown as { schemas: Record<string, { properties: object }> }).schemas;
    const props = Object.keys(named[ref.split('/').pop() ?? '']?.properties ?? {});
    for (const f of ['uuid', 'reference', 'status', 'amount', 'amount_captured', 'order_cycle', 'email_sent']) {
      assert.ok(props.includes(f), f);
    }
    assert.ok(!props.includes('guest_phone'));
    assert.ok(!props.includes('language'));
  });

  test('GET /api/docs/ serves the reference page from installed packages: HTML, no CDN', async () => {
    const r = await t.call({ method: 'GET', url: '/api/docs/', tenant: null });
    assert.equal(r.statusCode, 200);
    assert.match(String(r.headers['content-type']), /^text\/html/);
    assert.match(r.body, /<html/i);
    assert.doesNotMatch(r.body, /https?:\/\//, 'no absolute URL: nothing loaded from a CDN');
    assert.doesNotMatch(r.body, /unpkg|jsdelivr|cdnjs|cloudflare/i);
    // Every script and stylesheet it references is served by the service itself.
    const assets = [...r.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
    assert.ok(
      assets.some((a) => a.endsWith('.js')),
      'the page loads scripts',
    );
    for (const asset of assets) {
      const url = new URL(asset, 'http://localhost/api/docs/').pathname;
      const a = await t.call({ method: 'GET', url, tenant: null });
      assert.equal(a.statusCode, 200, url);
      if (url.endsWith('.js')) assert.doesNotMatch(a.body.slice(0, 2000), /<html/i, `${url} is a script`);
    }
  });

  test('the page reads the same document as /api/openapi.json', async () => {
    const r = await t.call({ method: 'GET', url: '/api/docs/json', tenant: null });
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.json(), doc);
  });

  test('every response carried x-request-id and none was a 5xx', () => auditResponses(t));
});
