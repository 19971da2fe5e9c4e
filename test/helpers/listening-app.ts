import { createServer } from 'node:net';
import { startTestApp, type TestApp, type TestAppOptions } from './test-app.ts';

export interface ListeningApp extends TestApp {
  /** `http://127.0.0.1:<port>`: PUBLIC_BASE_URL, so the sandbox's IPN and redirects reach this app. */
  baseUrl: string;
}

/** A port nobody listens on right now (the OS picks it); also a "service down" address. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/**
 * The real app listening on 127.0.0.1 with PUBLIC_BASE_URL pointing at itself: what the
 * sandbox's real HTTP round trips (card form post, IPN, redirect) need. The port is chosen
 * before the app is built because the base URL is part of its configuration; if another
 * process takes it in between, the next one is tried.
 */
export async function startListeningApp(options: TestAppOptions = {}): Promise<ListeningApp> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const t = await startTestApp({ ...options, env: { PUBLIC_BASE_URL: baseUrl, ...options.env } });
    try {
      await t.app.listen({ host: '127.0.0.1', port });
      return { ...t, baseUrl };
    } catch (err) {
      lastError = err;
      await t.close();
      if ((err as { code?: string }).code !== 'EADDRINUSE') throw err;
    }
  }
  throw lastError;
}
