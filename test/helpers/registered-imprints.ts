import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../src/db/index.ts';
import { secretBox, singleKey } from '../../src/secrets/index.ts';

/** Rows per statement: few round trips, little of PGlite's memory. */
const CHUNK = 2_000;

/**
 * What the card registrations of many guests leave behind, written set-based for a test that
 * needs thousands (through the API and the notifications one by one, that is minutes): for
 * each imprint, a request of `tenantId` AUTHORISED with the provider's card token sealed with
 * `secretKey` to the request's own id, as a registration seals it. The cards themselves are
 * the caller's to register at the provider. Returns the requests' ids.
 */
export async function seedRegisteredImprints(
  db: Queryable,
  opts: {
    tenantId: string;
    secretKey: string;
    provider: string;
    imprints: readonly { checkin: string; cardToken: string }[];
  },
): Promise<string[]> {
  const box = secretBox(singleKey(opts.secretKey), 'card-token');
  const all: string[] = [];
  for (let start = 0; start < opts.imprints.length; start += CHUNK) {
    const part = opts.imprints.slice(start, start + CHUNK);
    const ids = part.map(() => randomUUID());
    await db.query(
      `INSERT INTO payment_requests (id, tenant_id, reference, request_type, status, amount, currency,
         guest_email, guest_first_name, guest_last_name, language, reservation_ref, reservation_data, checkin,
         masked_pan, card_expiry_month, card_expiry_year, card_token, provider, link_expires_at)
       SELECT x.id, $1, 'IMP-SEED-' || (x.k + $6), 'IMPRINT', 'AUTHORISED', 15000, 'EUR',
         'guest' || (x.k + $6) || '@example.com', 'Guest', 'Number ' || (x.k + $6), 'en', 'RES-' || (x.k + $6),
         jsonb_build_object('checkin', x.checkin), x.checkin::date,
         '497010XXXXXX0055', 12, 2031, x.sealed, $5, now() + interval '30 days'
         FROM unnest($2::uuid[], $3::text[], $4::text[]) WITH ORDINALITY AS x(id, checkin, sealed, k)`,
      [
        opts.tenantId,
        ids,
        part.map((p) => p.checkin),
        part.map((p, i) => box.seal(p.cardToken, ids[i] as string)),
        opts.provider,
        start,
      ],
    );
    all.push(...ids);
  }
  return all;
}
