import { createServer } from 'node:net';
import { startTestApp, type TestApp, type TestAppOptions } from '../helpers/test-app.js';

/** A port nobody listens on right now (the OS picks it; closed again before the app takes it). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface ListeningApp extends TestApp {
  baseUrl: string;
}

/**
 * The real app listening on 127.0.0.1, PUBLIC_BASE_URL set to its own address: a browser loads
 * the pages and the sandbox posts its IPN over HTTP, as in production. TRUST_PROXY lets each
 * browser context name its own client address (X-Forwarded-For), so the guest pages' 30 a
 * minute per IP limit applies per test, not to the whole file.
 */
export async function startListeningApp(options: TestAppOptions = {}): Promise<ListeningApp> {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const t = await startTestApp({
      ...options,
      env: { PUBLIC_BASE_URL: baseUrl, TRUST_PROXY: 'true', SANDBOX_IPN_RETRY_MS: '50', ...options.env },
    });
    try {
      await t.app.listen({ host: '127.0.0.1', port });
      return { ...t, baseUrl };
    } catch (err) {
      await t.close();
      // Another process took the port between the probe and the listen: try another one.
      if (attempt >= 3 || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    }
  }
}
