import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';

/** Sends `head` as the request line and headers over a socket; answers what came back, once closed. */
function raw(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      text += d;
      // One answer is all this asks for: done once its body has come.
      const length = /content-length: (\d+)/i.exec(text)?.[1];
      const bodyAt = text.indexOf('\r\n\r\n');
      if (length && bodyAt >= 0 && Buffer.byteLength(text.slice(bodyAt + 4)) >= Number(length)) socket.end();
    });
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
    socket.write(head);
  });
}

// The statuses route's `refs` may hold 60,000 characters (its schema says so): the header limit
// must let such a request through, and what goes past the limit is answered in the service's
// error shape, never Node's bare 431.
describe('the request line and headers: limits that agree with the document', () => {
  let t: ListeningApp;
  let port: number;
  before(async () => {
    t = await startListeningApp();
    port = Number(new URL(t.baseUrl).port);
  });
  after(() => t?.close());

  const get = (path: string, extra = '') =>
    raw(
      port,
      `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${t.tenant.key}\r\n${extra}Connection: close\r\n\r\n`,
    );

  test('a refs of 56,000 characters (400 references) is answered', async () => {
    const refs = Array.from({ length: 400 }, (_, i) => `R${String(i).padStart(138, '0')}`).join(',');
    assert.ok(refs.length > 16_384 && refs.length <= 60_000);
    const answer = await get(`/api/payment-requests/statuses/?refs=${refs}`);
    assert.match(answer, /^HTTP\/1\.1 200 /, answer.slice(0, 300));
  });

  test('past the limit: 431 with the error shape and a code', async () => {
    const answer = await get('/api/payment-requests/statuses/?refs=A', `X-Filler: ${'x'.repeat(70_000)}\r\n`);
    assert.match(answer, /^HTTP\/1\.1 431 /, answer.slice(0, 300));
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: string; code: string };
    assert.equal(body.code, 'headers_too_large');
    assert.equal(typeof body.error, 'string');
  });
});
