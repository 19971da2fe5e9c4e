import { isIP } from 'node:net';

/**
 * TRUST_PROXY, as Fastify's `trustProxy` takes it: the number of proxies in front of the service
 * (hops), or the proxies' addresses. `true` trusts every address, so any client could name its
 * own IP in X-Forwarded-For (and escape the per-IP limits) and claim HTTPS with
 * X-Forwarded-Proto: it is refused in production.
 */
export type TrustProxy = false | true | number | string[];

/** proxy-addr's names for the private ranges. */
const NAMED_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

function isAddressOrRange(entry: string): boolean {
  if (NAMED_RANGES.includes(entry)) return true;
  const [address = '', bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  const n = Number(bits);
  return /^\d{1,3}$/.test(bits) && n <= (family === 4 ? 32 : 128);
}

/** Throws a one-line message (the caller makes it a ConfigError) when the value is not usable. */
export function parseTrustProxy(raw: string | undefined, production: boolean): TrustProxy {
  const value = (raw ?? '').trim();
  if (value === '' || value === 'false' || value === '0') return false;
  if (value === 'true') {
    if (production) {
      throw new Error(
        'TRUST_PROXY=true lets any client choose its own address and protocol: give the number of proxies in front (1 behind one nginx) or their addresses',
      );
    }
    return true;
  }
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops > 10) throw new Error(`TRUST_PROXY must be a number of proxies from 0 to 10 (got "${raw}")`);
    return hops;
  }
  const entries = value.split(',').map((e) => e.trim());
  const bad = entries.find((e) => !isAddressOrRange(e));
  if (bad !== undefined) {
    throw new Error(
      `TRUST_PROXY must be a number of proxies, or IP addresses / CIDR ranges separated by commas (got "${bad}")`,
    );
  }
  return entries;
}
