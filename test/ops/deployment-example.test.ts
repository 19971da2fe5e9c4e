import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { PLAIN_HTTP_REFUSED } from '../../src/server.ts';
import { freePort, killAll, payreq, ServeProcess, scratchDir } from '../cli/payreq-process.ts';
import { ENGINE } from '../helpers/database.ts';
import { createPostgresDatabase, databaseUrl, dropPostgresDatabase } from '../helpers/database-template.ts';
import { redisMissing } from '../helpers/prerequisites.ts';
import { PRODUCTION_SECRET_KEY } from '../helpers/production-secret.ts';

const DEPLOYMENT_MD = fileURLToPath(new URL('../../docs/deployment.md', import.meta.url));
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The variables of docs/deployment.md's "Environment" block, as written there (comments dropped). */
function documentedEnvironment(markdown: string): Record<string, string> {
  const section = markdown.split(/^## Environment$/m)[1]?.split(/^## /m)[0] ?? '';
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block, 'docs/deployment.md has an "## Environment" section with a ```sh block');
  const env: Record<string, string> = {};
  for (const line of block.split('\n')) {
    const m = /^([A-Z][A-Z0-9_]*)=(\S*)/.exec(line);
    if (m) env[m[1] as string] = m[2] as string;
  }
  return env;
}

/**
 * The documented placeholders and what this test puts in their place; every other documented
 * value is used as written. A variable added to the block and not listed here fails the test,
 * so the example cannot grow a value a real deployment must change without this test knowing.
 */
function replacements(database: string, port: number): Record<string, (documented: string) => string> {
  return {
    DATABASE_URL: () => database,
    REDIS_URL: () => REDIS_URL,
    SECRET_KEY: () => PRODUCTION_SECRET_KEY,
    METRICS_TOKEN: () => randomBytes(24).toString('hex'),
    // Nothing is sent in this test; a port nobody listens on, so nothing could leave either.
    SMTP_URL: () => `smtp://user:pass@127.0.0.1:${port}`,
  };
}
const AS_WRITTEN = ['NODE_ENV', 'PUBLIC_BASE_URL', 'PAYMENT_PROVIDER', 'TRUST_PROXY', 'LOG_LEVEL'];

describe('docs/deployment.md: the environment example starts as written, behind a proxy', {
  skip:
    (ENGINE !== 'postgres' && 'PostgreSQL only: the documented deployment runs on PostgreSQL') ||
    (await redisMissing(REDIS_URL)),
  timeout: 240_000,
}, () => {
  const scratch = scratchDir();
  const adminUrl = process.env.TEST_POSTGRES_URL ?? '';
  const name = `payreq_deploy_${randomBytes(6).toString('hex')}`;
  let env: NodeJS.ProcessEnv;
  let documented: Record<string, string>;

  before(async () => {
    // An empty database of its own, no template: `payreq migrate` makes the schema, as on a first deploy.
    await createPostgresDatabase(adminUrl, name);
    documented = documentedEnvironment(readFileSync(DEPLOYMENT_MD, 'utf8'));
    const swap = replacements(databaseUrl(adminUrl, name), await freePort());
    const unknown = Object.keys(documented).filter((k) => !(k in swap) && !AS_WRITTEN.includes(k));
    assert.deepEqual(unknown, [], 'a documented variable this test does not know: list it here');
    const values = Object.fromEntries(Object.entries(documented).map(([k, v]) => [k, swap[k]?.(v) ?? v]));
    // Exactly those, plus the unit's PORT and HOST (the systemd unit of the same page).
    env = { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: process.env.TMPDIR, ...values, HOST: '127.0.0.1' };
  });
  after(async () => {
    killAll();
    await dropPostgresDatabase(adminUrl, name);
    scratch.cleanup();
  });

  test('the block is a production one: NODE_ENV=production, a real provider, a proxy trusted', () => {
    assert.equal(documented.NODE_ENV, 'production');
    assert.match(documented.PAYMENT_PROVIDER ?? '', /^(lyra|stripe)$/);
    assert.equal(documented.TRUST_PROXY, '127.0.0.1');
  });

  test('payreq migrate, then serve: X-Forwarded-Proto https from the proxy is served, plain HTTP gets the hint', async () => {
    const migrated = await payreq(['migrate'], { ...env, PORT: String(await freePort()) }, scratch.dir);
    assert.equal(migrated.code, 0, migrated.stderr);

    const port = await freePort();
    const serve = await ServeProcess.start({ ...env, PORT: String(port) }, scratch.dir);
    try {
      assert.doesNotMatch(serve.stderr, /https_required/, 'TRUST_PROXY set: no note about plain HTTP');
      const base = `http://127.0.0.1:${port}`;
      const viaProxy = await fetch(`${base}/api/payment-requests/`, { headers: { 'x-forwarded-proto': 'https' } });
      assert.equal(viaProxy.status, 401, 'past the HTTPS check, asked for a key');
      const plain = await fetch(`${base}/api/payment-requests/`);
      assert.equal(plain.status, 403);
      const body = (await plain.json()) as { code: string; error: string };
      assert.equal(body.code, 'https_required');
      assert.match(body.error, /^HTTPS required: .*TRUST_PROXY.*NODE_ENV=development/);
      const ready = await fetch(`${base}/readyz`);
      assert.equal(ready.status, 200);
    } finally {
      assert.equal(await serve.stop(), 0);
    }
  });

  test('without TRUST_PROXY, serve says on stderr that plain HTTP will be refused, and how to allow it', async () => {
    const port = await freePort();
    const { TRUST_PROXY: _trusted, ...untrusted } = env;
    const serve = await ServeProcess.start({ ...untrusted, PORT: String(port) }, scratch.dir);
    try {
      assert.ok(serve.stderr.includes(PLAIN_HTTP_REFUSED), serve.stderr);
    } finally {
      assert.equal(await serve.stop(), 0);
    }
  });
});
