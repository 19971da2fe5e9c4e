import { readMessages } from './apaleo-wire.ts';
import { type CachedToken, processTokens, type TokenCache, usableUntil } from './token-cache.ts';

/**
 * One hotel's Apaleo, as payreq calls it: a token by the client credentials grant
 * (`POST {identity}/connect/token`, `grant_type=client_credentials`, the client id and secret by
 * HTTP Basic: apaleo.dev, "OAuth 2.0 - Client credentials grant flow"; the n8n node's
 * credentials do the same), then the API with `Authorization: Bearer`. A 401 renews the token
 * once and repeats the call once: a second 401 is an answer, never a loop.
 */
export interface ApaleoEndpoint {
  tenantId: string;
  /** The connection's version: a token is cached per connection, never reused by the next. */
  version: string;
  apiUrl: string;
  identityUrl: string;
  clientId: string;
  clientSecret: string;
}

/**
 * Why a call did not give an answer to use. `unavailable`: not reached, timed out, 5xx or 429
 * (tried again later; `maybeSent`: a POST may have been done without its answer reaching us);
 * `refused`: Apaleo said no (a 4xx other than 429), with its `messages`; `credentials`: the
 * identity server refused the client id and secret (any 4xx there).
 */
export type ApaleoFailure =
  | { kind: 'unavailable'; message: string; retryAfterMs?: number; maybeSent: boolean }
  | { kind: 'refused'; status: number; message: string }
  | { kind: 'credentials'; status: number; message: string };

export class ApaleoError extends Error {
  readonly failure: ApaleoFailure;
  constructor(failure: ApaleoFailure) {
    super(failure.message);
    this.failure = failure;
    this.name = 'ApaleoError';
  }
}

export interface ApaleoResponse {
  status: number;
  /** The JSON body; undefined when there is none (204) or it is not JSON. */
  body: unknown;
  retryAfterMs?: number;
}

export interface ClientOptions {
  tokens?: TokenCache;
  /** Each call's limit (a lost answer is a timeout). */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;

const base = (url: string) => url.replace(/\/+$/, '');

/** Retry-After as seconds or an HTTP date (RFC 9110 10.2.3), in ms from now; undefined if neither. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(at - now, 0);
}

async function readBody(r: Response): Promise<unknown> {
  const raw = await r.text();
  if (raw.trim() === '') return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

/** A non-2xx answer in a sentence: its status and Apaleo's messages. */
export function describeAnswer(r: ApaleoResponse): string {
  const messages = readMessages(r.body);
  return `HTTP ${r.status}${messages.length > 0 ? `: ${messages.join('; ')}` : ''}`;
}

/** What a non-2xx answer means for the call (see ApaleoFailure). */
export function failureOf(r: ApaleoResponse, method: string): ApaleoFailure {
  if (r.status === 429 || r.status >= 500) {
    return {
      kind: 'unavailable',
      message: describeAnswer(r),
      ...(r.retryAfterMs !== undefined ? { retryAfterMs: r.retryAfterMs } : {}),
      // A gateway's 5xx may come after the work was done: a POST is read back before it is sent again.
      maybeSent: method === 'POST' && r.status >= 500,
    };
  }
  return { kind: 'refused', status: r.status, message: describeAnswer(r) };
}

export function apaleoClient(endpoint: ApaleoEndpoint, options: ClientOptions = {}) {
  const tokens = options.tokens ?? processTokens;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const key = `${endpoint.tenantId}:${endpoint.version}`;

  async function fetchToken(): Promise<CachedToken> {
    // As Apaleo's own n8n node sends them: id and secret as they are, joined by a colon.
    const basic = Buffer.from(`${endpoint.clientId}:${endpoint.clientSecret}`).toString('base64');
    let r: Response;
    try {
      r = await fetch(`${base(endpoint.identityUrl)}/connect/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${basic}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: 'grant_type=client_credentials',
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new ApaleoError({
        kind: 'unavailable',
        message: `Apaleo's identity server was not reached: ${(err as Error).message}`,
        maybeSent: false,
      });
    }
    const body = await readBody(r).catch(() => undefined);
    const answer = { status: r.status, body, retryAfterMs: retryAfterMs(r.headers.get('retry-after')) };
    // An identity server answers a bad client 400 invalid_client as well as 401: any 4xx is a refusal.
    if (r.status >= 400 && r.status < 500 && r.status !== 429) {
      throw new ApaleoError({
        kind: 'credentials',
        status: r.status,
        message: `Apaleo refused the client id and secret (${describeAnswer(answer)})`,
      });
    }
    const token = (body as { access_token?: unknown; expires_in?: unknown } | undefined) ?? {};
    if (r.status >= 300 || typeof token.access_token !== 'string' || token.access_token === '') {
      throw new ApaleoError({
        kind: 'unavailable',
        message: `Apaleo's identity server gave no token (${describeAnswer(answer)})`,
        ...(answer.retryAfterMs !== undefined ? { retryAfterMs: answer.retryAfterMs } : {}),
        maybeSent: false,
      });
    }
    const expiresIn = typeof token.expires_in === 'number' ? token.expires_in : 3600;
    return { value: token.access_token, usableUntil: usableUntil(Date.now(), expiresIn) };
  }

  async function once(
    token: string,
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    opts: { body?: unknown; idempotencyKey?: string },
  ): Promise<ApaleoResponse> {
    let r: Response;
    try {
      r = await fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(opts.idempotencyKey ? { 'idempotency-key': opts.idempotencyKey } : {}),
        },
        ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      // Sent, perhaps done, its answer lost (a cut connection, a timeout): a POST is read back first.
      throw new ApaleoError({
        kind: 'unavailable',
        message: `Apaleo was not reached or did not answer: ${(err as Error).message}`,
        maybeSent: method === 'POST',
      });
    }
    let body: unknown;
    try {
      body = await readBody(r);
    } catch (err) {
      throw new ApaleoError({
        kind: 'unavailable',
        message: `Apaleo's answer was cut off: ${(err as Error).message}`,
        maybeSent: method === 'POST',
      });
    }
    const after = retryAfterMs(r.headers.get('retry-after'));
    return { status: r.status, body, ...(after !== undefined ? { retryAfterMs: after } : {}) };
  }

  return {
    /** A token for the connection (cached; fetched once for all callers when none is usable). */
    token: () => tokens.get(key, fetchToken),

    /**
     * One call with the hotel's token; a 401 renews the token once and repeats the call once.
     * Answers every status (the caller decides what a 404 means); throws ApaleoError when no
     * answer came or no token could be had.
     */
    async call(
      method: 'GET' | 'POST' | 'DELETE',
      path: string,
      opts: { query?: Record<string, string>; body?: unknown; idempotencyKey?: string; baseUrl?: string } = {},
    ): Promise<ApaleoResponse> {
      const query = opts.query ? `?${new URLSearchParams(opts.query).toString()}` : '';
      const url = `${base(opts.baseUrl ?? endpoint.apiUrl)}${path}${query}`;
      const first = await tokens.get(key, fetchToken);
      const r = await once(first.value, method, url, opts);
      if (r.status !== 401) return r;
      tokens.drop(key, first.value);
      const renewed = await tokens.get(key, fetchToken);
      return once(renewed.value, method, url, opts);
    },

    forgetToken: () => tokens.forget(`${endpoint.tenantId}:`),
  };
}
export type ApaleoClient = ReturnType<typeof apaleoClient>;
