import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, test } from 'node:test';
import Fastify from 'fastify';
import { installHeaderGuard } from '../../src/api/index.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { ENGINE } from '../helpers/test-app.ts';

/** One GET over a real socket (fetch would refuse to send some of these, and follows redirects). */
function get(baseUrl: string, path: string): Promise<{ status: number; location: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${baseUrl}${path}`, { method: 'GET' }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
    });
    req.on('error', reject);
    req.end();
  });
}

// Each of these once reached the Location header and stopped the process (ERR_INVALID_CHAR
// thrown from writeHead, then again while the error page was written).
const HOSTILE_BACKS = ['%0a', '%0d%0a', '%7f', '%E2%80%A8', '%00', '%09x', 'a%20b', '%C3%A9', 'a%5Cb'];

describe(`no header value a client sends can stop the process (${ENGINE})`, { timeout: 60_000 }, () => {
  let t: ListeningApp;
  before(async () => {
    t = await startListeningApp();
  });
  after(() => t.close());

  for (const tail of HOSTILE_BACKS) {
    test(`the language switch with back=/control/${tail} goes to /control/ and the service still answers`, async () => {
      const r = await get(t.baseUrl, `/control/language/en?back=/control/${tail}`);
      assert.equal(r.status, 303);
      assert.equal(r.location, '/control/');
      assert.equal((await get(t.baseUrl, '/readyz')).status, 200);
    });
  }

  test('a safe target under /control/ is kept, query and all', async () => {
    const r = await get(t.baseUrl, '/control/language/fr?back=/control/requests%3Fstatus%3DPAID');
    assert.equal(r.status, 303);
    assert.equal(r.location, '/control/requests?status=PAID');
  });
});

describe('a header Node would refuse becomes a 500, and the process goes on', () => {
  test('a route that sets one answers 500; the next request is served', async () => {
    const app = Fastify({ logger: false });
    installHeaderGuard(app);
    app.get('/bad', async (_request, reply) => reply.header('location', '/x\ny').code(303).send());
    app.get('/ok', async () => 'ok');
    await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const address = app.server.address();
      const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      const bad = await get(base, '/bad');
      assert.equal(bad.status, 500);
      assert.equal(bad.location, undefined);
      assert.equal((await get(base, '/ok')).status, 200);
    } finally {
      await app.close();
    }
  });

  test("Node's own rule decides: DEL, NUL, U+2028 refused by the guard; a tab and Latin-1 written as they are", async () => {
    // The guard says what it refused in the log: a refusal left to Node would not be there.
    const lines: string[] = [];
    const stream = { write: (line: string) => lines.push(line) };
    const app = Fastify({ logger: { level: 'error', stream } });
    installHeaderGuard(app);
    const values = { del: 'a\x7fb', nul: 'a\x00b', separator: 'a\u2028b', tab: 'a\tb', latin: 'caf\u00e9' };
    app.get('/:which', async (request, reply) =>
      reply.header('x-test', values[(request.params as { which: keyof typeof values }).which]).send('ok'),
    );
    try {
      for (const which of ['del', 'nul', 'separator'] as const) {
        lines.length = 0;
        const r = await app.inject({ method: 'GET', url: `/${which}` });
        assert.equal(r.statusCode, 500, which);
        assert.equal(r.headers['x-test'], undefined, which);
        assert.deepEqual(
          lines.map((l) => JSON.parse(l).headers),
          [['x-test']],
          `${which}: refused by the guard`,
        );
      }
      const tab = await app.inject({ method: 'GET', url: '/tab' });
      assert.equal(tab.statusCode, 200);
      assert.equal(tab.headers['x-test'], 'a\tb');
      const latin = await app.inject({ method: 'GET', url: '/latin' });
      assert.equal(latin.statusCode, 200);
      assert.equal(Buffer.from(String(latin.headers['x-test']), 'latin1').toString('latin1'), 'caf\u00e9');
    } finally {
      await app.close();
    }
  });
});
