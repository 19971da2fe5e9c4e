import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

const run = promisify(execFile);
const REDOCLY = join(process.cwd(), 'node_modules', '.bin', 'redocly');

interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  parameters?: { name: string; in: string; required?: boolean }[];
  requestBody?: { content: Record<string, { schema: { $ref?: string }; example?: unknown }> };
  responses: Record<
    string,
    {
      description: string;
      headers?: Record<string, unknown>;
      content?: Record<
        string,
        { schema: { $ref?: string; allOf?: Record<string, unknown>[]; items?: { $ref?: string } } }
      >;
    }
  >;
}

describe(`OpenAPI document: complete and lint-clean (${ENGINE})`, () => {
  let t: TestApp;
  let doc: { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };
  let raw: string;
  before(async () => {
    t = await startTestApp();
    raw = (await t.call({ method: 'GET', url: '/api/openapi.json', tenant: null })).body;
    doc = JSON.parse(raw);
  });
  after(() => t.close());

  const operations = () => Object.values(doc.paths).flatMap((item) => Object.values(item));

  test('every operation has a unique operationId, a summary and a description', () => {
    const ids = operations().map((op) => op.operationId);
    assert.ok(ids.length >= 8);
    for (const op of operations()) {
      assert.match(op.operationId ?? '', /^[a-z][A-Za-z]+$/, JSON.stringify(op.summary));
      assert.ok(op.summary && op.description, op.operationId);
    }
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
  });

  test('every response has its own description and a named schema or a narrowed error shape', () => {
    for (const op of operations()) {
      for (const [status, response] of Object.entries(op.responses)) {
        assert.notEqual(response.description, 'Default Response', `${op.operationId} ${status}`);
        const schema = Object.values(response.content ?? {})[0]?.schema;
        assert.ok(schema, `${op.operationId} ${status} has a body schema`);
        const ref = schema.$ref ?? schema.items?.$ref ?? (schema.allOf?.[0]?.$ref as string | undefined);
        assert.match(ref ?? '', /^#\/components\/schemas\/\w+$/, `${op.operationId} ${status}`);
        assert.ok(doc.components.schemas[(ref ?? '').split('/').pop() ?? ''], `${ref} exists`);
        if (Number(status) >= 400) {
          const narrowed = schema.allOf?.[1] as { properties?: { code?: { enum?: string[] } } } | undefined;
          const codes = narrowed?.properties?.code?.enum ?? [];
          assert.ok(codes.length > 0, `${op.operationId} ${status} lists its codes`);
        }
      }
    }
  });

  test('create: realistic example, refs required on statuses, Location on 201, outcome_unknown on actions', () => {
    const create = doc.paths['/api/payment-requests/']?.post as Operation;
    const example = Object.values(create.requestBody?.content ?? {})[0]?.example as Record<string, unknown>;
    assert.equal(example.request_type, 'DEPOSIT');
    assert.ok((example.amount as number) > 0);
    assert.match(String(example.guest_email), /@example\.com$/);
    assert.ok(create.responses['201']?.headers?.Location);
    const refs = doc.paths['/api/payment-requests/statuses/']?.get?.parameters?.find((p) => p.name === 'refs');
    assert.equal(refs?.required, true);
    const capture = doc.paths['/api/payment-requests/{uuid}/capture/']?.post as Operation;
    const codes = JSON.stringify(capture.responses['504']);
    assert.match(codes, /outcome_unknown/);
    for (const name of ['CreatePaymentRequest', 'PaymentRequestDetail', 'PaymentRequestStatus', 'Error']) {
      assert.ok(doc.components.schemas[name], name);
    }
  });

  test("Redocly's recommended rules find no error (trailing slashes allowed: the paths are fixed)", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'payreq-openapi-'));
    try {
      const file = join(dir, 'openapi.json');
      await writeFile(file, raw);
      const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
      const result = await run(REDOCLY, ['lint', file, '--config', 'redocly.yaml', '--format', 'json'], {
        env,
        maxBuffer: 16 * 1024 * 1024,
      }).catch((err: { stdout: string; stderr: string }) => err);
      const report = JSON.parse(result.stdout) as { totals: { errors: number }; problems: { message: string }[] };
      assert.equal(report.totals.errors, 0, JSON.stringify(report.problems, null, 1));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
