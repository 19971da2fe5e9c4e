import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { PRODUCTION_SECRET_KEY } from '../helpers/production-secret.ts';
import { cliEnv, freePort, killAll, pgliteDataDir, ServeProcess, scratchDir } from './payreq-process.ts';

// Issue 51: Fastify's request logging wrote two lines per request (its arrival and its answer),
// synchronously. Now one line, when the request is answered, through an asynchronous destination.
describe('the request log: one line per request, when it is answered', { timeout: 240_000 }, () => {
  const scratch = scratchDir();
  after(() => {
    killAll();
    scratch.cleanup();
  });

  test('three requests write three lines, each with its id, status and time; no arrival line at info', async () => {
    const port = await freePort();
    const env = cliEnv({
      DATABASE_URL: `pglite://${pgliteDataDir(path.join(scratch.dir, 'data'))}`,
      PORT: String(port),
      SECRET_KEY: PRODUCTION_SECRET_KEY,
      LOG_LEVEL: 'info',
    });
    const serve = await ServeProcess.start(env, scratch.dir, 120_000);
    const ids = ['log-one', 'log-two', 'log-three'];
    for (const id of ids) {
      const r = await fetch(`http://127.0.0.1:${port}/healthz`, { headers: { 'x-request-id': id } });
      assert.equal(r.status, 200);
    }
    // The lines are written without blocking: wait until the last one is out.
    const lines = async () =>
      serve.stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    for (let i = 0; i < 200 && !(await lines()).some((l) => l.reqId === 'log-three'); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const ours = (await lines()).filter((l) => ids.includes(String(l.reqId)));
    assert.deepEqual(
      ours.map((l) => [l.reqId, l.msg, (l.res as { statusCode?: number } | undefined)?.statusCode]),
      ids.map((id) => [id, 'request completed', 200]),
    );
    for (const l of ours) {
      assert.equal((l.req as { url?: string }).url, '/healthz');
      assert.equal(typeof l.responseTime, 'number');
    }
    assert.ok(!serve.stdout.includes('"msg":"incoming request"'), 'no arrival line at info');
    // Nor any warning of the runtime's or the framework's (a deprecated option, say) on its start.
    assert.doesNotMatch(serve.stderr, /Warning|Deprecation/);
    serve.child.kill('SIGTERM');
    assert.equal(await serve.exited, 0, serve.stderr);
  });
});
