import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ControlClient, createUser } from '../control/control-client.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { ipnSignature } from '../helpers/sandbox-checkout.ts';
import { createRequest, ENGINE } from '../helpers/test-app.ts';
import { rawExchange, statusOf } from './raw-http.ts';

/** One answer read off the wire: its status, its Location, and all of it as text. */
interface Answer {
  status: number;
  location: string | undefined;
  text: string;
}

/**
 * HTTP/1.1 lets a request line name the whole URL (`GET http://host/path HTTP/1.1`, the
 * absolute form proxies are sent). No HTTP client library sends it to an origin server, so
 * these go over a raw socket, each beside the same request in origin form: the answers must be
 * the same, never a 5xx, and nothing in them may take the target's host for the service's own.
 */
describe(`a request line in absolute form is answered as in origin form (${ENGINE})`, () => {
  let t: ListeningApp;
  let port: number;
  let guestPath: string;
  const cookies = new Map<'signed in' | 'signed out', string>();

  before(async () => {
    t = await startListeningApp();
    port = Number(new URL(t.baseUrl).port);
    guestPath = (await createRequest(t)).payment_link;
    await createUser(t, 'absolute-root');
    cookies.set('signed in', (await new ControlClient(t).signedIn('absolute-root')).cookieHeader());
    const anonymous = new ControlClient(t);
    await anonymous.get('/control/sign-in');
    cookies.set('signed out', anonymous.cookieHeader());
  });
  after(() => t.close());

  async function send(method: string, target: string, headers: Record<string, string>, body = ''): Promise<Answer> {
    const lines = Object.entries({ ...headers, 'Content-Length': String(Buffer.byteLength(body)) })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    const text = await rawExchange(
      port,
      Buffer.from(
        `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n${lines}\r\n${body}`,
      ),
      false,
    );
    return { status: statusOf(text), location: /^location: ([^\r]*)/im.exec(text)?.[1], text };
  }

  /** The same request in origin form and in each absolute form; the answers compared. */
  async function sameAnswers(method: string, path: string, headers: Record<string, string> = {}, body = '') {
    const origin = await send(method, path, headers, body);
    assert.ok(origin.status >= 200 && origin.status < 500, `${method} ${path}: ${origin.text.slice(0, 300)}`);
    for (const authority of [`127.0.0.1:${port}`, 'evil.example', 'EVIL.example:8443', 'user@evil.example']) {
      for (const scheme of ['http', 'HTTPS']) {
        const target = `${scheme}://${authority}${path}`;
        const absolute = await send(method, target, headers, body);
        const what = `${method} ${target}: ${absolute.text.slice(0, 400)}`;
        assert.equal(absolute.status, origin.status, what);
        assert.equal(absolute.location, origin.location, what);
        assert.doesNotMatch(absolute.text, /evil\.example/i, `the target's host is not the service's: ${what}`);
      }
    }
    return origin;
  }

  test('the back office, signed in and signed out: pages, redirects and the language switch', async () => {
    const signedIn = { Cookie: cookies.get('signed in') ?? '' };
    const signedOut = { Cookie: cookies.get('signed out') ?? '' };
    assert.equal((await sameAnswers('GET', '/control/requests', signedIn)).status, 200);
    assert.equal((await sameAnswers('GET', '/control/requests?status=CAPTURED', signedIn)).status, 200);
    assert.equal((await sameAnswers('GET', '/control/', signedIn)).location, '/control/requests');
    assert.equal((await sameAnswers('GET', '/control/requests', signedOut)).location, '/control/sign-in');
    assert.equal((await sameAnswers('GET', '/control/sign-in', signedOut)).status, 200);
    assert.equal((await sameAnswers('GET', '/control/nowhere', signedIn)).status, 404);
    const back = encodeURIComponent('/control/requests?page=2');
    assert.equal(
      (await sameAnswers('GET', `/control/language/fr?back=${back}`, signedIn)).location,
      '/control/requests?page=2',
    );
  });

  test('the API, the guest page and the notification endpoint', async () => {
    const key = { 'X-API-Key': t.tenant.key };
    assert.equal((await sameAnswers('GET', '/api/payment-requests/', key)).status, 200);
    assert.equal((await sameAnswers('GET', '/api/payment-requests/?limit=1', key)).status, 200);
    assert.equal((await sameAnswers('GET', guestPath)).status, 200);
    assert.equal((await sameAnswers('GET', '/readyz')).status, 200);
    // Signed, but no notification the sandbox sends: refused the same way in both forms.
    const body = JSON.stringify({ event_id: 'x' });
    const signed = {
      'Content-Type': 'application/json',
      'X-Sandbox-Signature': ipnSignature(t.app.payreq.secretKey, body),
    };
    assert.equal((await sameAnswers('POST', '/ipn/sandbox/', signed, body)).status, 401);
  });

  test('a target with no path is the root; one that is no URL is refused, never a 5xx', async () => {
    assert.equal((await send('GET', `http://127.0.0.1:${port}`, {})).status, (await send('GET', '/', {})).status);
    assert.equal((await send('GET', `http://evil.example?x=1`, {})).status, (await send('GET', '/?x=1', {})).status);
    for (const target of ['http://', 'http:///control/requests', 'ftp://evil.example/control/requests', '*']) {
      const r = await send('GET', target, { Cookie: cookies.get('signed in') ?? '' });
      assert.ok(r.status >= 400 && r.status < 500, `${target}: ${r.text.slice(0, 300)}`);
    }
  });
});
