import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The header every delivery carries: `t=<unix seconds>,v1=<hex HMAC-SHA-256 of "t.body">`, with
 * one `v1=` per secret that signs: after a rotation, the new secret's first and the previous
 * one's last, for the grace period (a receiver that reads only the last `v1=` keeps working
 * with the old secret until it is given the new one).
 */
export const SIGNATURE_HEADER = 'payreq-signature';

/**
 * Signs a delivery as Stripe does: the timestamp is part of what is signed, so a captured
 * request cannot be replayed later with a fresh header.
 */
export function signatureHeader(secrets: string | readonly string[], body: string, unixSeconds: number): string {
  const macs = (typeof secrets === 'string' ? [secrets] : secrets).map(
    (secret) => `v1=${createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex')}`,
  );
  return [`t=${unixSeconds}`, ...macs].join(',');
}

/**
 * What a receiver does: recompute the HMAC over the raw body (exactly the bytes received) and
 * compare in constant time; refuse a timestamp further than `toleranceSeconds` from now.
 */
export function verifySignature(
  secret: string,
  body: string,
  header: string | undefined,
  opts: { toleranceSeconds?: number; nowSeconds?: number } = {},
): boolean {
  if (!header) return false;
  const parts = header.split(',').map((p) => p.trim().split('='));
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  if (!Number.isInteger(t)) return false;
  const now = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - t) > (opts.toleranceSeconds ?? 300)) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(`${t}.${body}`).digest('hex'));
  return parts
    .filter(([k]) => k === 'v1')
    .some(([, v]) => {
      const given = Buffer.from(v ?? '');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}
