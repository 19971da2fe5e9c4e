import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Checks a webhook delivery: `Payreq-Signature: t=<unix>,v1=<hex HMAC-SHA-256 of "t.body">`
 * with the endpoint's secret, over the raw body exactly as received (before any JSON parsing).
 * A timestamp further than `toleranceSeconds` from now is refused: it bounds replays.
 */
export function verifyWebhookSignature(
  secret: string,
  rawBody: string,
  header: string | null | undefined,
  opts: { toleranceSeconds?: number; nowSeconds?: number } = {},
): boolean {
  if (!header) return false;
  const parts = header.split(',').map((p) => p.trim().split('='));
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  if (!Number.isInteger(t)) return false;
  const now = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - t) > (opts.toleranceSeconds ?? 300)) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(`${t}.${rawBody}`).digest('hex'));
  return parts
    .filter(([k]) => k === 'v1')
    .some(([, v]) => {
      const given = Buffer.from(v ?? '');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}
