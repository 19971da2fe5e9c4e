import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BIN } from './payreq-process.ts';

// The real bin/payreq.js, copied into a scratch tree whose src/cli/main.ts only says how it was
// run: the working tree's own sources are never touched.
describe('bin/payreq.js: the TypeScript sources as Node runs them, with the Node flags of its first line', () => {
  let root: string;
  before(() => {
    root = mkdtempSync(path.join(tmpdir(), 'payreq-bin-'));
    for (const dir of ['bin', 'src/cli']) mkdirSync(path.join(root, dir), { recursive: true });
    copyFileSync(BIN, path.join(root, 'bin/payreq.js'));
    writeFileSync(path.join(root, 'package.json'), '{"type":"module"}\n');
    // Types to strip and a relative `.ts` import, as the real sources have: no loader, no build.
    writeFileSync(path.join(root, 'src/cli/flags.ts'), 'export const flags: string[] = process.execArgv;\n');
    writeFileSync(
      path.join(root, 'src/cli/main.ts'),
      "import type { Buffer } from 'node:buffer';\nimport { flags } from './flags.ts';\n" +
        'const none: Buffer | undefined = undefined;\nconsole.log(JSON.stringify({ flags, none }));\n',
    );
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  test('node bin/payreq.js runs src/cli/main.ts as it is', () => {
    const r = spawnSync(process.execPath, [path.join(root, 'bin/payreq.js')], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { flags: [] });
    assert.equal(r.stderr, '', 'no warning');
  });

  // Run as an executable (`payreq …`, `npx payreq …`), its first line gives Node its flags: the
  // young generation capped (docs/operations.md, Memory). `npm start` must give the same ones.
  test('run as an executable, on the Node found on PATH with --max-semi-space-size=16, as npm start does', () => {
    // The Node running this test first on PATH, as npm puts the pinned one.
    const r = spawnSync(path.join(root, 'bin/payreq.js'), [], {
      encoding: 'utf8',
      env: { PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}`, HOME: process.env.HOME },
    });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { flags: ['--max-semi-space-size=16'] });
    const pkg = JSON.parse(readFileSync(path.resolve(path.dirname(BIN), '../package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    assert.equal(pkg.scripts.start, 'node --max-semi-space-size=16 bin/payreq.js serve');
  });

  // An older Node on the machine (Debian's 20) running the entry point directly gets one sentence,
  // not the SyntaxError its module linker would throw at Node 24's APIs and .ts imports.
  const older = olderNode();
  test('an older Node gets "payreq needs Node 24" and exit 1, nothing else', { skip: older.skip }, () => {
    const r = spawnSync(older.path, [BIN, '--help'], { encoding: 'utf8' });
    assert.equal(r.status, 1);
    assert.equal(r.stdout, '');
    assert.equal(
      r.stderr,
      `payreq needs Node 24 (found ${older.major}); run it through npm, which uses the pinned one (npx payreq, npm start)\n`,
    );
  });

  // npm checks `engines` against the Node running npm, never the pinned one payreq runs on:
  // `engines.node` must not make every `npx payreq` warn about a mismatch that is not there.
  test('npx payreq on the older Node runs the pinned one, with no EBADENGINE warning', { skip: older.skip }, () => {
    const npx = path.join(path.dirname(older.path), 'npx');
    const r = spawnSync(npx, ['--no-install', 'payreq', '--help'], {
      cwd: path.resolve(path.dirname(BIN), '..'),
      encoding: 'utf8',
      env: { PATH: `${path.dirname(older.path)}${path.delimiter}/bin`, HOME: process.env.HOME },
    });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^payreq: payment requests for hotels/);
    assert.doesNotMatch(r.stderr, /EBADENGINE/);
  });
});

/** A Node older than 24 on the machine (OLDER_NODE, or the system's /usr/bin/node), or why there is none. */
function olderNode(): { path: string; major: number; skip: string | false } {
  const candidate = process.env.OLDER_NODE ?? '/usr/bin/node';
  const r = spawnSync(candidate, ['-p', 'process.versions.node'], { encoding: 'utf8' });
  const major = Number(String(r.stdout).split('.')[0]);
  if (r.status !== 0 || !Number.isInteger(major)) return { path: candidate, major: 0, skip: `no Node at ${candidate}` };
  if (major >= 24) return { path: candidate, major, skip: `${candidate} is Node ${major}, not an older one` };
  return { path: candidate, major, skip: false };
}
