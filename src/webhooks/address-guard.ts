import dns, { type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * The SSRF guard: a webhook is a request our server makes to an address a hotel chooses, so
 * without it a back-office user could point one at the database, the cloud's metadata service
 * (and its credentials) or anything else only our network reaches. Every address is classified
 * here, at registration (each address the name resolves to) and again at each delivery, where
 * the connection's own lookup refuses a forbidden address: the address connected to is the one
 * checked, so a name that resolves to a public address at registration and to 127.0.0.1 later
 * (DNS rebinding) gets nowhere.
 */

/**
 * Why an address is refused. `loopback`, `private` and `shared` (CGNAT, 100.64/10, also the
 * range of overlay VPNs) are allowed with WEBHOOKS_ALLOW_PRIVATE=on, for a PMS on the hotel's
 * own network; the others never are: no receiver lives at a link-local, multicast, unspecified
 * or reserved address, and the metadata services hand out the server's cloud credentials.
 */
export type AddressClass =
  | 'loopback'
  | 'private'
  | 'shared'
  | 'link-local'
  | 'metadata'
  | 'multicast'
  | 'unspecified'
  | 'reserved';

const PRIVATE_CLASSES: ReadonlySet<AddressClass> = new Set(['loopback', 'private', 'shared']);

type Rule = [network: string, prefix: number, family: 'ipv4' | 'ipv6', cls: AddressClass];

// Checked in this order: the metadata addresses first, since they sit inside other ranges.
const RULES: Rule[] = [
  ['169.254.169.254', 32, 'ipv4', 'metadata'], // AWS, GCP, Azure, OpenStack, Oracle…
  ['100.100.100.200', 32, 'ipv4', 'metadata'], // Alibaba Cloud
  ['192.0.0.192', 32, 'ipv4', 'metadata'], // Oracle Cloud (older)
  ['fd00:ec2::254', 128, 'ipv6', 'metadata'], // AWS over IPv6
  ['0.0.0.0', 8, 'ipv4', 'unspecified'], // "this network": 0.0.0.0 reaches the local host
  ['127.0.0.0', 8, 'ipv4', 'loopback'],
  ['10.0.0.0', 8, 'ipv4', 'private'],
  ['172.16.0.0', 12, 'ipv4', 'private'],
  ['192.168.0.0', 16, 'ipv4', 'private'],
  ['100.64.0.0', 10, 'ipv4', 'shared'],
  ['169.254.0.0', 16, 'ipv4', 'link-local'],
  ['224.0.0.0', 4, 'ipv4', 'multicast'],
  ['192.0.0.0', 24, 'ipv4', 'reserved'], // protocol assignments
  ['192.0.2.0', 24, 'ipv4', 'reserved'], // documentation
  ['198.51.100.0', 24, 'ipv4', 'reserved'],
  ['203.0.113.0', 24, 'ipv4', 'reserved'],
  ['198.18.0.0', 15, 'ipv4', 'reserved'], // benchmarking
  ['240.0.0.0', 4, 'ipv4', 'reserved'], // future use, and 255.255.255.255 (broadcast)
  ['::', 128, 'ipv6', 'unspecified'],
  ['::1', 128, 'ipv6', 'loopback'],
  ['::', 96, 'ipv6', 'reserved'], // IPv4-compatible (deprecated)
  ['64:ff9b:1::', 48, 'ipv6', 'private'], // local-use NAT64
  ['100::', 64, 'ipv6', 'reserved'], // discard
  ['2001::', 32, 'ipv6', 'reserved'], // Teredo: hides an IPv4 address
  ['2001:db8::', 32, 'ipv6', 'reserved'], // documentation
  ['fc00::', 7, 'ipv6', 'private'], // unique local
  ['fec0::', 10, 'ipv6', 'private'], // site-local (deprecated)
  ['fe80::', 10, 'ipv6', 'link-local'],
  ['ff00::', 8, 'ipv6', 'multicast'],
];

const LISTS = RULES.map(([network, prefix, family, cls]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return { list, family, cls };
});

/** An IPv4 address carried inside an IPv6 one (mapped ::ffff:a.b.c.d, NAT64, 6to4), if any. */
function embeddedIPv4(ip: string): string | undefined {
  const words = expandIPv6(ip);
  if (!words) return undefined;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zeros = (from: number, to: number) => words.slice(from, to).every((w) => w === 0);
  if (zeros(0, 5) && words[5] === 0xffff) return v4(words[6] ?? 0, words[7] ?? 0); // ::ffff:0:0/96
  if (words[0] === 0x64 && words[1] === 0xff9b && zeros(2, 6)) return v4(words[6] ?? 0, words[7] ?? 0); // 64:ff9b::/96
  if (words[0] === 0x2002) return v4(words[1] ?? 0, words[2] ?? 0); // 2002::/16
  return undefined;
}

/** The eight 16-bit words of an IPv6 address (dotted IPv4 tail allowed), or undefined. */
function expandIPv6(ip: string): number[] | undefined {
  if (isIP(ip) !== 6) return undefined;
  let text = ip.split('%')[0] ?? '';
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, -dotted[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const part = (s: string) => (s === '' ? [] : s.split(':').map((w) => Number.parseInt(w, 16)));
  const h = part(head);
  const t = tail === undefined ? [] : part(tail);
  const fill = tail === undefined ? [] : new Array(8 - h.length - t.length).fill(0);
  const words = [...h, ...fill, ...t];
  return words.length === 8 ? words : undefined;
}

/** What kind of forbidden address `ip` is, or undefined for a public one (or not an address). */
export function classifyAddress(ip: string): AddressClass | undefined {
  const bracketless = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  // A zone (fe80::1%eth0) says which interface, not which address.
  const bare = bracketless.split('%')[0] ?? '';
  const family = isIP(bare);
  if (family === 0) return undefined;
  if (family === 6) {
    const inner = embeddedIPv4(bare);
    if (inner !== undefined) return classifyAddress(inner);
  }
  const type = family === 4 ? 'ipv4' : 'ipv6';
  return LISTS.find((r) => r.family === type && r.list.check(bare, type))?.cls;
}

/** Whether an address may be connected to under the operator's setting. */
export function addressAllowed(ip: string, allowPrivate: boolean): boolean {
  const cls = classifyAddress(ip);
  return cls === undefined || (allowPrivate && PRIVATE_CLASSES.has(cls));
}

/** A refused address: the message is what the delivery log and the registration form show. */
export class ForbiddenAddressError extends Error {
  readonly code = 'EWEBHOOKADDRESS';
  readonly host: string;
  readonly address: string;
  readonly addressClass: AddressClass;
  constructor(host: string, address: string, addressClass: AddressClass) {
    super(
      host === address
        ? `refused: ${address} is a ${addressClass} address`
        : `refused: ${host} resolves to ${address}, a ${addressClass} address`,
    );
    this.host = host;
    this.address = address;
    this.addressClass = addressClass;
  }
}

/** Resolves a name to all its addresses (dns.lookup, as connections do); tests inject their own. */
export type Resolve = (host: string) => Promise<LookupAddress[]>;

/** How long registration waits for the name to resolve. */
const REGISTRATION_LOOKUP_MS = 5000;

export const systemResolve: Resolve = (host) => dns.promises.lookup(host, { all: true, verbatim: true });

export interface GuardPolicy {
  /** WEBHOOKS_ALLOW_PRIVATE=on: loopback, private and shared addresses are allowed. */
  allowPrivate: boolean;
  resolve?: Resolve;
}

/** Throws ForbiddenAddressError naming the first forbidden address of `addresses`. */
function refuseForbidden(host: string, addresses: readonly string[], allowPrivate: boolean): void {
  for (const address of addresses) {
    if (!addressAllowed(address, allowPrivate)) {
      throw new ForbiddenAddressError(host, address, classifyAddress(address) as AddressClass);
    }
  }
}

/**
 * The check at registration: a literal address is classified; a name is resolved and refused
 * if any of its addresses is forbidden (a name that does not resolve yet, or not within 5 s, is
 * let through: there is nothing to reach, and every delivery checks again).
 */
export async function checkHost(hostname: string, policy: GuardPolicy): Promise<void> {
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (isIP(host)) return refuseForbidden(host, [host], policy.allowPrivate);
  let addresses: LookupAddress[];
  let timer: NodeJS.Timeout | undefined;
  try {
    // A resolver that does not answer must not hold the form for long: the delivery checks anyway.
    const slow = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('lookup timed out')), REGISTRATION_LOOKUP_MS);
    });
    addresses = await Promise.race([(policy.resolve ?? systemResolve)(host), slow]);
  } catch {
    return;
  } finally {
    clearTimeout(timer);
  }
  refuseForbidden(
    host,
    addresses.map((a) => a.address),
    policy.allowPrivate,
  );
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http.request / net.connect that resolves the name and refuses a forbidden
 * address, so that the socket only ever connects to a checked one. Node asks for every
 * address (`all`) when it may try several (happy eyeballs), or one.
 */
export function guardedLookup(policy: GuardPolicy) {
  const resolve = policy.resolve ?? systemResolve;
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    resolve(hostname).then(
      (all) => {
        const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
        const wanted = family === 4 || family === 6 ? all.filter((a) => a.family === family) : all;
        try {
          if (wanted.length === 0) {
            const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
            err.code = 'ENOTFOUND';
            throw err;
          }
          refuseForbidden(
            hostname,
            wanted.map((a) => a.address),
            policy.allowPrivate,
          );
        } catch (err) {
          return callback(err as NodeJS.ErrnoException, '');
        }
        if (options.all) callback(null, wanted);
        else callback(null, wanted[0]?.address ?? '', wanted[0]?.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}

/** The check of a literal address in a URL (connections to one do not look anything up). */
export function checkLiteral(hostname: string, allowPrivate: boolean): void {
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (isIP(host)) refuseForbidden(host, [host], allowPrivate);
}
