import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { ENGINE } from '../helpers/test-app.ts';

// The checkout itself, whose client sources are packed.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function run(cmd: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv }) {
  return new Promise<{ code: number; out: string }>((resolve) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env } });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('close', (code) => resolve({ code: code ?? 1, out }));
  });
}

/** The fenced block of `lang` that follows `heading` in the client's doc, as printed. */
async function docBlock(heading: string, lang: string): Promise<string> {
  const doc = await readFile(path.join(ROOT, 'docs/typescript-client.md'), 'utf8');
  const from = doc.indexOf(heading);
  assert.ok(from >= 0, `the doc has ${heading}`);
  const m = new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(doc.slice(from));
  assert.ok(m?.[1], `a ${lang} block under ${heading}`);
  return m[1];
}

// The client installs as its doc says (npm pack, then npm install of the tarball into a project
// of one's own) and the doc's program runs as printed with plain Node, and type-checks as
// TypeScript, against the real service.
describe(`the typed client as a PMS developer installs it (${ENGINE})`, { timeout: 180_000 }, () => {
  let t: ListeningApp;
  let project: string;
  let installed: { code: number; out: string };
  before(async () => {
    t = await startListeningApp();
    project = await mkdtemp(path.join(tmpdir(), 'payreq-pms-'));
    const packed = await run('npm', ['pack', '--pack-destination', project, './clients/typescript'], { cwd: ROOT });
    assert.equal(packed.code, 0, packed.out);
    const tarball = (await readdir(project)).find((f) => f.endsWith('.tgz'));
    assert.ok(tarball, packed.out);
    // A project as `npm init -y` makes it: CommonJS (no "type"), where most integrators start.
    const init = await run('npm', ['init', '-y'], { cwd: project });
    assert.equal(init.code, 0, init.out);
    const made = JSON.parse(await readFile(path.join(project, 'package.json'), 'utf8')) as { type?: string };
    assert.notEqual(made.type, 'module', 'npm init makes a CommonJS project');
    installed = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', `./${tarball}`], {
      cwd: project,
    });
  });
  after(async () => {
    await t.close();
    await rm(project, { recursive: true, force: true });
  });

  /** Installing needs the npm registry for openapi-fetch (unless npm's cache has it). */
  function needsInstall(ctx: { skip: (why: string) => void }): boolean {
    if (installed.code === 0) return true;
    if (/ENOTFOUND|ECONNREFUSED|EAI_AGAIN|ENOTCACHED|ETIMEDOUT/.test(installed.out)) {
      ctx.skip(`the npm registry is unreachable, the tarball could not be installed: ${installed.out.slice(0, 200)}`);
      return false;
    }
    assert.fail(`npm install of the packed client failed:\n${installed.out}`);
  }

  test('the tarball holds the built JavaScript and its declarations', async (ctx) => {
    if (!needsInstall(ctx)) return;
    const files = await readdir(path.join(project, 'node_modules/@payreq/client/dist'));
    assert.deepEqual(
      ['index.d.ts', 'index.js', 'schema.d.ts'].filter((f) => !files.includes(f)),
      [],
      files.join(', '),
    );
  });

  test("the doc's program runs as printed with plain Node: a deposit is created", async (ctx) => {
    if (!needsInstall(ctx)) return;
    await writeFile(path.join(project, 'example.mjs'), await docBlock('## Use', 'js'));
    const r = await run(process.execPath, ['example.mjs'], {
      cwd: project,
      env: { PAYREQ_URL: t.baseUrl, PAYREQ_KEY: t.tenant.key },
    });
    assert.equal(r.code, 0, r.out);
    const [created, events] = r.out.trim().split('\n');
    const m = /^(DEP-\d{4}-\d{4,}) \/payment\/([0-9a-f-]{36})\/$/.exec(created ?? '');
    assert.ok(m, r.out);
    const row = await t.repos.paymentRequests.find(t.tenant.tenantId, m[2] as string);
    assert.deepEqual([row?.reference, row?.amount, row?.reservation_ref], [m[1], 12050, 'BK-4711']);
    // The feed may not show the new request's event yet (an open transaction elsewhere on the
    // database server holds it back a moment): the program's second call answered, with a count.
    assert.match(events ?? '', /^\d+ events$/);
  });

  test("the doc's CommonJS program runs as printed, as example.cjs, loading the client with import()", async (ctx) => {
    if (!needsInstall(ctx)) return;
    await writeFile(path.join(project, 'example.cjs'), await docBlock('### From CommonJS', 'js'));
    const r = await run(process.execPath, ['example.cjs'], {
      cwd: project,
      env: { PAYREQ_URL: t.baseUrl, PAYREQ_KEY: t.tenant.key },
    });
    assert.equal(r.code, 0, r.out);
    assert.match(r.out.trim(), /^(DEP|IMP)-\d{4}-\d{4,}$|^no request yet$/);
  });

  test("the package's README carries the doc's program, the same to the character", async () => {
    const readme = await readFile(path.join(ROOT, 'clients/typescript/README.md'), 'utf8');
    const block = /```js\n([\s\S]*?)```/.exec(readme)?.[1];
    assert.equal(block, await docBlock('## Use', 'js'));
    assert.match(readme, /example\.mjs/);
  });

  test("the doc's program type-checks as TypeScript (NodeNext) against the installed declarations", async (ctx) => {
    if (!needsInstall(ctx)) return;
    // .mts: an ES module whatever the project's "type" (a CommonJS project's .ts could not import it).
    await writeFile(path.join(project, 'example.mts'), await docBlock('## Use', 'js'));
    const tsconfig = {
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ['node'],
        typeRoots: [path.join(ROOT, 'node_modules/@types')],
      },
      files: ['example.mts'],
    };
    await writeFile(path.join(project, 'tsconfig.json'), JSON.stringify(tsconfig));
    const r = await run(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', project], {
      cwd: project,
    });
    assert.equal(r.code, 0, r.out);
  });
  test('it is free software: Apache-2.0 in the installed package, its LICENSE, and the served document', async () => {
    const dir = path.join(project, 'node_modules', '@payreq', 'client');
    const pkg = JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8')) as { license: string };
    assert.equal(pkg.license, 'Apache-2.0');
    assert.match(await readFile(path.join(dir, 'LICENSE'), 'utf8'), /^\s*Apache License\s+Version 2\.0, January 2004/);
    const root = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { license: string };
    assert.equal(root.license, 'Apache-2.0');
    const doc = (await (await fetch(`${t.baseUrl}/api/openapi.json`)).json()) as {
      info: { license: { identifier: string } };
    };
    assert.equal(doc.info.license.identifier, 'Apache-2.0');
  });
});
