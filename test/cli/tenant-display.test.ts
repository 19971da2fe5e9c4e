import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.ts';
import { makePng, oversizedPng, SVG_LOGO } from '../helpers/images.ts';
import {
  assertFails,
  cliEnv,
  freePort,
  killAll,
  parseJson,
  payreq,
  pgliteDataDir,
  ServeProcess,
  scratchDir,
} from './payreq-process.ts';

interface TenantJson {
  id: string;
  address: string | null;
  phone: string | null;
  contact_email: string | null;
  terms_url: string | null;
  accent_color: string | null;
  logo: { type: string; sha256: string; path: string } | null;
  changed?: string[];
}

describe(`payreq tenant update (display settings) and tenant set-logo (${ENGINE})`, { timeout: 300_000 }, () => {
  const scratch = scratchDir();
  let testDb: TestDatabase | undefined;
  let env: NodeJS.ProcessEnv;
  let id: string;
  const run = (...args: string[]) => payreq(args, env, scratch.dir);
  const show = async () => parseJson<TenantJson>(await run('tenant', 'show', '--tenant', id, '--json'));

  before(async () => {
    if (ENGINE === 'postgres') testDb = await createTestDatabase();
    env = cliEnv({ DATABASE_URL: testDb ? testDb.url : `pglite://${pgliteDataDir(`${scratch.dir}/data`)}` });
    id = parseJson<{ id: string }>(await run('tenant', 'create', '--name', 'Lac', '--json')).id;
    mkdirSync(path.join(scratch.dir, 'files'));
    writeFileSync(path.join(scratch.dir, 'files', 'logo.png'), makePng(30, 10));
    writeFileSync(path.join(scratch.dir, 'files', 'logo.svg'), SVG_LOGO);
    writeFileSync(path.join(scratch.dir, 'files', 'big.png'), oversizedPng(300 * 1024));
    writeFileSync(path.join(scratch.dir, 'files', 'huge.png'), oversizedPng(600 * 1024));
  });
  after(async () => {
    killAll();
    await testDb?.drop();
    scratch.cleanup();
  });

  test('the display settings are set, normalised and shown; empty clears one', async () => {
    const updated = parseJson<TenantJson>(
      await run(
        'tenant',
        'update',
        '--tenant',
        id,
        '--address',
        '12 rue du Lac\\n74000 Annecy',
        '--phone',
        '+33 4 50 00 00 00',
        '--contact-email',
        'desk@lac.example',
        '--terms-url',
        'https://lac.example/conditions',
        '--accent-color',
        '#1F4E79',
        '--json',
      ),
    );
    assert.deepEqual(updated.changed, ['address', 'phone', 'contact_email', 'terms_url', 'accent_color']);
    assert.equal(updated.address, '12 rue du Lac\n74000 Annecy');
    assert.equal(updated.accent_color, '#1f4e79');
    const text = await run('tenant', 'show', '--tenant', id);
    assert.match(text.stdout, /address\s+12 rue du Lac, 74000 Annecy\n/);
    assert.match(text.stdout, /accent_color\s+#1f4e79\n/);
    assert.match(text.stdout, /logo\s+\(not set\)\n/);
    const cleared = parseJson<TenantJson>(await run('tenant', 'update', '--tenant', id, '--phone', '', '--json'));
    assert.equal(cleared.phone, null);
    assert.deepEqual(cleared.changed, ['phone']);
  });

  test('a colour without enough contrast, an http link, a bad phone: one line each, nothing written', async () => {
    const before = await show();
    assertFails(
      await run('tenant', 'update', '--tenant', id, '--accent-color', '#ffcc00'),
      /^error: --accent-color #ffcc00 has a contrast of 1\.\d\d:1 with .* at least 4\.5:1 is needed \(WCAG AA\)/,
    );
    assertFails(
      await run(
        'tenant',
        'update',
        '--tenant',
        id,
        '--terms-url',
        'http://lac.example/',
        '--phone',
        'x',
        '--accent-color',
        '#222',
      ),
      /--phone must be a phone number.*; --terms-url must be an https:\/\/ address/,
    );
    assert.deepEqual(await show(), before);
  });

  test('set-logo reads the file (a relative path), checks it by its bytes, and says where it is served', async () => {
    const set = parseJson<TenantJson>(
      await run('tenant', 'set-logo', '--tenant', id, '--file', 'files/logo.png', '--json'),
    );
    assert.deepEqual(set.changed, ['logo']);
    assert.equal(set.logo?.type, 'image/png');
    assert.match(set.logo?.sha256 ?? '', /^[0-9a-f]{64}$/);
    assert.equal(set.logo?.path, `/logo/${id}/${set.logo?.sha256}`);
    const again = parseJson<TenantJson>(
      await run('tenant', 'set-logo', '--tenant', id, '--file', 'files/logo.png', '--json'),
    );
    assert.deepEqual(again.changed, [], 'the same bytes: nothing changed');
    const text = await run('tenant', 'show', '--tenant', id);
    assert.match(text.stdout, new RegExp(`logo\\s+image/png, served at /logo/${id}/${set.logo?.sha256}\\n`));
  });

  test('SVG, too big, not a file, no file: refused in one line, the logo unchanged', async () => {
    const before = await show();
    assertFails(
      await run('tenant', 'set-logo', '--tenant', id, '--file', 'files/logo.svg'),
      /^error: --file SVG is not accepted \(it can carry scripts\)/,
    );
    assertFails(
      await run('tenant', 'set-logo', '--tenant', id, '--file', 'files/big.png'),
      /^error: --file the file is larger than 200 kB, the most a logo may be/,
    );
    assertFails(
      await run('tenant', 'set-logo', '--tenant', id, '--file', 'files/huge.png'),
      /^error: --file files\/huge.png: the file is 600 kB, more than the 512 kB a command reads/,
    );
    assertFails(
      await run('tenant', 'set-logo', '--tenant', id, '--file', 'files/none.png'),
      /cannot read --file files\/none.png: no such file/,
    );
    assertFails(
      await run('tenant', 'set-logo', '--tenant', id, '--file', 'files'),
      /cannot read --file files: it is a directory/,
    );
    assertFails(await run('tenant', 'set-logo', '--tenant', id), /give --file PATH or --remove/);
    assertFails(
      await run('tenant', 'set-logo', '--tenant', id, '--file', 'files/logo.png', '--remove'),
      /give --file PATH or --remove/,
    );
    assert.deepEqual(await show(), before);
  });

  test('--remove takes the logo off', async () => {
    const removed = parseJson<TenantJson>(await run('tenant', 'set-logo', '--tenant', id, '--remove', '--json'));
    assert.equal(removed.logo, null);
    assert.deepEqual(removed.changed, ['logo']);
  });
});

describe('tenant set-logo while `serve` holds a PGlite directory', {
  skip: ENGINE !== 'pglite' && 'PGlite only: with PostgreSQL every process connects directly',
  timeout: 240_000,
}, () => {
  const scratch = scratchDir();
  let env: NodeJS.ProcessEnv;
  let serve: ServeProcess;
  let base: string;
  const run = (...args: string[]) => payreq(args, env, scratch.dir);

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    env = cliEnv({ DATABASE_URL: `pglite://${pgliteDataDir(`${scratch.dir}/data`)}`, PORT: String(port) });
    serve = await ServeProcess.start({ ...env, LOG_LEVEL: 'info' }, scratch.dir);
  });
  after(() => {
    killAll();
    scratch.cleanup();
  });

  test('the CLI reads the file and sends its bytes: the service serves the logo at once', async () => {
    const { id } = parseJson<{ id: string }>(await run('tenant', 'create', '--name', 'Hôtel Service', '--json'));
    const logo = makePng(12, 6);
    // A path only the CLI's working directory makes sense of: the service must not open it.
    mkdirSync(path.join(scratch.dir, 'brand'));
    writeFileSync(path.join(scratch.dir, 'brand', 'logo.png'), logo);
    const set = parseJson<TenantJson>(
      await run('tenant', 'set-logo', '--tenant', id, '--file', 'brand/logo.png', '--json'),
    );
    await serve.ranThroughControl('"tenant set-logo"', 1, 'the command ran inside the service');
    const r = await fetch(`${base}${set.logo?.path}`);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'image/png');
    assert.deepEqual(Buffer.from(await r.arrayBuffer()), logo);
    await serve.stop();
  });
});
