// test-engines: pglite (what is tested is the process's signal handling, the same on both
// engines; PGlite's data-directory lock is what holds the start-up still while the signal lands)
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { tryLock } from '../../src/instance/index.ts';
import { cliEnv, freePort, killAll, pgliteDataDir, ServeProcess, scratchDir } from './payreq-process.ts';

describe('SIGTERM during start-up', { timeout: 120_000 }, () => {
  const scratch = scratchDir();
  after(() => {
    killAll();
    scratch.cleanup();
  });

  // A supervisor may signal a service that has not finished starting, or signal it the moment
  // it reads "listening". Either way the stop is the graceful one: the start completes, then
  // everything is closed and the exit is 0, never a death by the signal's default action.
  test('the start finishes, then the service stops cleanly and frees its directory', async () => {
    const dataDir = pgliteDataDir(path.join(scratch.dir, 'data'));
    // This process plays a CLI command holding the directory: the start waits for it.
    const lock = tryLock(dataDir, 'cli');
    assert.ok('release' in lock, 'the directory was free');
    const serve = ServeProcess.launch(
      cliEnv({ DATABASE_URL: `pglite://${dataDir}`, PORT: String(await freePort()) }),
      scratch.dir,
    );
    try {
      await serve.stderrMatches(new RegExp(`waiting for the payreq command \\(process ${process.pid}\\) that holds `));
      serve.child.kill('SIGTERM');
    } finally {
      lock.release();
    }
    assert.equal(await serve.exited, 0, serve.stderr);
    assert.match(serve.stderr, /payreq listening on /);
    assert.ok(!existsSync(path.join(dataDir, 'payreq.lock')), 'lock released');
  });
});
