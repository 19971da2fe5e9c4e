import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BIN } from './payreq-process.ts';

// The real bin/payreq.js, copied into a scratch tree whose entry points only say which one ran:
// the working tree's own src/ and dist/ are never touched.
describe('bin/payreq.js: the compiled build while it is newer than the sources, else the sources', () => {
  let root: string;
  const at = (file: string, seconds: number) => utimesSync(path.join(root, file), seconds, seconds);
  const run = (env: Record<string, string> = {}) => {
    const r = spawnSync(process.execPath, [path.join(root, 'bin/payreq.js')], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout.trim();
  };

  before(() => {
    root = mkdtempSync(path.join(tmpdir(), 'payreq-bin-'));
    for (const dir of ['bin', 'src/cli', 'src/db/migrations', 'dist/cli'])
      mkdirSync(path.join(root, dir), { recursive: true });
    copyFileSync(BIN, path.join(root, 'bin/payreq.js'));
    writeFileSync(path.join(root, 'package.json'), '{"type":"module"}\n');
    // tsx, as the real bin imports it, for the sources' path.
    symlinkSync(path.resolve(path.dirname(BIN), '../node_modules'), path.join(root, 'node_modules'), 'dir');
    writeFileSync(path.join(root, 'src/cli/main.ts'), "const from: string = 'sources';\nconsole.log(from);\n");
    writeFileSync(path.join(root, 'src/db/migrations/0001.sql'), 'SELECT 1;\n');
    writeFileSync(path.join(root, 'dist/cli/main.js'), "console.log('dist');\n");
    writeFileSync(path.join(root, 'dist/BUILT'), 'now\n');
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  test('a build newer than every source runs dist/', () => {
    at('src/cli/main.ts', 1_000);
    at('src/db/migrations/0001.sql', 1_000);
    at('dist/BUILT', 2_000);
    assert.equal(run(), 'dist');
  });

  test('PAYREQ_FROM_SOURCE=1 runs the sources even then', () => {
    assert.equal(run({ PAYREQ_FROM_SOURCE: '1' }), 'sources');
  });

  test('a source edited after the build, even a migration deep in src/, runs the sources', () => {
    at('src/db/migrations/0001.sql', 3_000);
    assert.equal(run(), 'sources');
    at('src/db/migrations/0001.sql', 1_000);
    at('src/cli/main.ts', 3_000);
    assert.equal(run(), 'sources');
  });

  test('no finished build (no dist/BUILT) runs the sources', () => {
    at('src/cli/main.ts', 1_000);
    rmSync(path.join(root, 'dist/BUILT'));
    assert.equal(run(), 'sources');
  });
});

// Run as an executable (`payreq …`, `npx payreq …`), its first line gives Node its flags: the
// young generation capped (docs/operations.md, Memory). `npm start` must give the same ones.
describe('bin/payreq.js as an executable: the Node flags of its first line', () => {
  let root: string;
  before(() => {
    root = mkdtempSync(path.join(tmpdir(), 'payreq-bin-flags-'));
    for (const dir of ['bin', 'src/cli', 'dist/cli']) mkdirSync(path.join(root, dir), { recursive: true });
    copyFileSync(BIN, path.join(root, 'bin/payreq.js'));
    writeFileSync(path.join(root, 'package.json'), '{"type":"module"}\n');
    writeFileSync(path.join(root, 'src/cli/main.ts'), 'console.log("sources");\n');
    writeFileSync(path.join(root, 'dist/cli/main.js'), 'console.log(JSON.stringify(process.execArgv));\n');
    writeFileSync(path.join(root, 'dist/BUILT'), 'now\n');
    utimesSync(path.join(root, 'src/cli/main.ts'), 1_000, 1_000);
    utimesSync(path.join(root, 'dist/BUILT'), 2_000, 2_000);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  test('runs on the Node found on PATH with --max-semi-space-size=16, as npm start does', () => {
    // The Node running this test first on PATH, as npm puts the pinned one.
    const r = spawnSync(path.join(root, 'bin/payreq.js'), [], {
      encoding: 'utf8',
      env: { PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}`, HOME: process.env.HOME },
    });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), ['--max-semi-space-size=16']);
    const pkg = JSON.parse(readFileSync(path.resolve(path.dirname(BIN), '../package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    assert.equal(pkg.scripts.start, 'node --max-semi-space-size=16 bin/payreq.js serve');
  });
});
