import type { Queryable } from './database.ts';

/**
 * Every column that holds a value sealed with SECRET_KEY, with the row key that is also its
 * sealing context (src/secrets): what `payreq secrets reseal` walks. A new sealed column is
 * added here, or a key rotation would leave it behind.
 */
export const SEALED_COLUMNS = {
  card_tokens: { table: 'payment_requests', key: 'id', column: 'card_token', purpose: 'card-token' },
  provider_accounts: {
    table: 'provider_accounts',
    key: 'tenant_id',
    column: 'secrets_sealed',
    purpose: 'provider-account',
  },
  // Past accounts: several rows per tenant, each bound to the tenant id like the current one.
  provider_account_versions: {
    table: 'provider_account_versions',
    key: 'tenant_id',
    column: 'secrets_sealed',
    purpose: 'provider-account',
  },
  webhook_secrets: { table: 'webhook_endpoints', key: 'id', column: 'secret_sealed', purpose: 'webhook-secret' },
  // The secret a rotation replaced, while it still signs (its grace period): bound to the endpoint id too.
  webhook_previous_secrets: {
    table: 'webhook_endpoints',
    key: 'id',
    column: 'previous_secret_sealed',
    purpose: 'webhook-secret',
  },
  // Back-office users' TOTP secrets, each bound to its user id.
  totp_secrets: { table: 'admin_two_factor', key: 'user_id', column: 'secret_sealed', purpose: 'totp-secret' },
  // A hotel's Apaleo client id and secret (src/pms), bound to its tenant id.
  pms_connections: { table: 'pms_connections', key: 'tenant_id', column: 'secrets_sealed', purpose: 'pms-connection' },
} as const;

export type SealedKind = keyof typeof SEALED_COLUMNS;

export interface SealedValue {
  /** The row's key, which is the value's sealing context. */
  key: string;
  sealed: string;
}

/** The key id a sealed value names, in SQL: `v1:…` is the legacy id v1, `v2:<id>:…` names its id. */
const KEY_ID_SQL = (column: string) =>
  `CASE WHEN starts_with(${column}, 'v1:') THEN 'v1' ELSE split_part(${column}, ':', 2) END`;

export function sealedValuesRepository(db: Queryable) {
  return {
    /**
     * Up to `limit` values not sealed under `currentPrefix` (`v2:<current id>:`), after row key
     * `after` in key order: a walk that restarts from the beginning skips what is done already.
     */
    async notUnder(
      kind: SealedKind,
      currentPrefix: string,
      after: string | null,
      limit: number,
    ): Promise<SealedValue[]> {
      const c = SEALED_COLUMNS[kind];
      const r = await db.query<SealedValue>(
        `SELECT ${c.key}::text AS key, ${c.column} AS sealed FROM ${c.table}
          WHERE ${c.column} IS NOT NULL AND NOT starts_with(${c.column}, $1)
            AND ($2::uuid IS NULL OR ${c.key} > $2::uuid)
          ORDER BY ${c.key} LIMIT $3`,
        [currentPrefix, after, limit],
      );
      return r.rows;
    },

    /**
     * Writes each new sealed value where the column still holds the old one (compare-and-set):
     * a row changed meanwhile (a new token, new credentials, a purge) keeps its newer value.
     * Returns the keys written.
     */
    async replace(
      kind: SealedKind,
      changes: readonly { key: string; old: string; next: string }[],
    ): Promise<Set<string>> {
      if (changes.length === 0) return new Set();
      const c = SEALED_COLUMNS[kind];
      const r = await db.query<{ key: string }>(
        `UPDATE ${c.table} AS t SET ${c.column} = v.next
           FROM unnest($1::uuid[], $2::text[], $3::text[]) AS v(key, old, next)
          WHERE t.${c.key} = v.key AND t.${c.column} = v.old
          RETURNING t.${c.key}::text AS key`,
        [changes.map((x) => x.key), changes.map((x) => x.old), changes.map((x) => x.next)],
      );
      return new Set(r.rows.map((x) => x.key));
    },

    /** How many values each key id holds in `kind`'s column. */
    async countByKeyId(kind: SealedKind): Promise<Map<string, number>> {
      const c = SEALED_COLUMNS[kind];
      const r = await db.query<{ key_id: string; n: number }>(
        `SELECT ${KEY_ID_SQL(c.column)} AS key_id, count(*)::int AS n FROM ${c.table}
          WHERE ${c.column} IS NOT NULL GROUP BY 1`,
      );
      return new Map(r.rows.map((x) => [x.key_id, x.n]));
    },
  };
}
export type SealedValuesRepository = ReturnType<typeof sealedValuesRepository>;
