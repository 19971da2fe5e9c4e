import { ProviderError } from '../payment-provider.ts';

/** What a call needs to reach one merchant's shop: every brand shares the API, hosts and keys differ. */
export interface LyraEndpoint {
  /** The brand's REST base, ending in `/api-payment/`; services live under `V4/`. */
  apiUrl: string;
  shopId: string;
  /** The test or production password: which one decides the mode, there is no sandbox host. */
  password: string;
  /** Each call is abandoned after this long, so a hung connection never outlives its caller. */
  timeoutMs: number;
}

/** The `answer` of a SUCCESS envelope: a Payment, a Transaction, an order's transactions... */
export type LyraAnswer = Record<string, unknown>;

export interface LyraClient {
  call(service: string, body: Record<string, unknown>): Promise<LyraAnswer>;
}

/**
 * Connection errors raised before a single byte of the request left: the call cannot have
 * happened, so it is 'unavailable', not in doubt. Every other failure may come after sending.
 */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * One REST V4 service call: `POST {apiUrl}V4/{Group}/{Service}`, JSON, Basic auth with the
 * shop id and password. Business errors come back as HTTP 200 with `status: "ERROR"`; the
 * envelope is checked before anything in it is believed.
 */
export function lyraClient(endpoint: LyraEndpoint): LyraClient {
  const base = endpoint.apiUrl.endsWith('/') ? endpoint.apiUrl : `${endpoint.apiUrl}/`;
  const authorization = `Basic ${Buffer.from(`${endpoint.shopId}:${endpoint.password}`).toString('base64')}`;

  return {
    async call(service, body) {
      const url = `${base}V4/${service}`;
      let response: Response;
      let text: string;
      try {
        response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json', authorization },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(endpoint.timeoutMs),
        });
        text = await response.text();
      } catch (err) {
        throw transportError(service, err, endpoint.timeoutMs);
      }
      return readEnvelope(service, response.status, text);
    },
  };
}

function transportError(service: string, err: unknown, timeoutMs: number): ProviderError {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
    return new ProviderError('unknown', `lyra ${service}: no answer within ${timeoutMs} ms`);
  }
  const code = errorCode(err);
  if (code && NOT_SENT.has(code)) return new ProviderError('unavailable', `lyra ${service}: not reached (${code})`);
  return new ProviderError('unknown', `lyra ${service}: connection lost (${code ?? 'no code'})`);
}

/** Node's fetch wraps the socket error in `cause` (sometimes twice, for TLS). */
function errorCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** An ERROR envelope: Lyra answered that it did nothing, and said why. */
export class LyraServiceError extends ProviderError {
  readonly errorCode: string;
  constructor(kind: ProviderError['kind'], message: string, errorCode: string) {
    super(kind, message);
    this.errorCode = errorCode;
    this.name = 'LyraServiceError';
  }
}

/** Refusals by the bank: the card said no. Every other error code is a technical failure. */
const REFUSAL_CODES = new Set(['ACQ_001']);

export function isRefusalCode(code: unknown): boolean {
  return typeof code === 'string' && REFUSAL_CODES.has(code);
}

function readEnvelope(service: string, httpStatus: number, text: string): LyraAnswer {
  const envelope = parseObject(text);
  const status = envelope?.status;
  const answer = envelope?.answer;
  if (envelope && (status === 'SUCCESS' || status === 'ERROR') && isObject(answer)) {
    if (status === 'SUCCESS' && httpStatus >= 200 && httpStatus < 300) return answer;
    // An ERROR envelope (HTTP 200 for business errors, 401 for bad credentials): nothing was done.
    const code = typeof answer.errorCode === 'string' ? answer.errorCode : 'no code';
    const detail = [answer.errorMessage, answer.detailedErrorCode].filter((x) => typeof x === 'string' && x);
    const message = `lyra ${service}: ${code}${detail.length ? ` (${detail.join(', ')})` : ''}`;
    throw new LyraServiceError(isRefusalCode(code) ? 'refused' : 'technical', message, code);
  }
  // No envelope: whatever stood between (a gateway's 503 or 429, a proxy's 4xx, a 500, a 200
  // that does not parse) cannot prove the service did not act. Only a connection refused
  // proves the call never left (transportError); here, the operation is in doubt.
  return raise('unknown', `lyra ${service}: HTTP ${httpStatus}, the answer is not a V4 envelope`);
}

function raise(kind: ProviderError['kind'], message: string): never {
  throw new ProviderError(kind, message);
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
