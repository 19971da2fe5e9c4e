import { BlockList, isIP } from 'node:net';
import type { TrustProxy } from '../config/index.ts';

/** proxy-addr's names for ranges (what TRUST_PROXY accepts), as CIDR ranges. */
const NAMED_RANGES: Record<string, string[]> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/** An IPv4 peer on a dual-stack socket is reported as `::ffff:a.b.c.d`: the address is a.b.c.d. */
export function plainAddress(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

/**
 * Whether a connection's peer is a proxy TRUST_PROXY trusts: the same rule Fastify applies to
 * X-Forwarded-For, decided at accept from the socket's address alone. A number of hops (or
 * `true`) means the nearest peer is always a proxy.
 */
export function proxyPeers(trust: TrustProxy): (address: string) => boolean {
  if (trust === false || trust === 0) return () => false;
  if (trust === true || typeof trust === 'number') return () => true;
  const list = new BlockList();
  for (const entry of trust.flatMap((e) => NAMED_RANGES[e] ?? [e])) {
    const [address = '', bits] = entry.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(bits), family);
  }
  return (raw) => {
    const address = plainAddress(raw);
    const family = isIP(address);
    return family !== 0 && list.check(address, family === 6 ? 'ipv6' : 'ipv4');
  };
}
