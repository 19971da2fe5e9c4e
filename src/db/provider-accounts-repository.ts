import type { Queryable } from './database.ts';

/** A tenant's provider account as stored: the secrets stay sealed here. */
export interface ProviderAccountRow {
  tenant_id: string;
  provider: 'sandbox' | 'lyra' | 'stripe';
  shop_id: string | null;
  api_url: string | null;
  static_url: string | null;
  mode: 'TEST' | 'PRODUCTION' | null;
  secrets_sealed: string | null;
  /** Stripe: the webhook endpoint payreq created itself (null: the operator configured it). */
  webhook_endpoint_id: string | null;
  version: number;
  created_at: Date;
  updated_at: Date;
}

export type ProviderAccountInput =
  | { provider: 'sandbox' }
  | {
      provider: 'lyra';
      shopId: string;
      apiUrl: string;
      staticUrl: string | null;
      mode: 'TEST' | 'PRODUCTION';
      secretsSealed: string;
    }
  | {
      provider: 'stripe';
      apiUrl: string;
      mode: 'TEST' | 'PRODUCTION';
      secretsSealed: string;
      webhookEndpointId: string | null;
    };

const COLUMNS =
  'tenant_id, provider, shop_id, api_url, static_url, mode, secrets_sealed, webhook_endpoint_id, version, created_at, updated_at';
/** A past version's columns, as a row (it has no update time of its own). */
const VERSION_COLUMNS = `v.tenant_id, v.provider, v.shop_id, v.api_url, v.static_url, v.mode, v.secrets_sealed,
  v.webhook_endpoint_id, v.version, v.created_at, v.created_at AS updated_at`;

export function providerAccountsRepository(db: Queryable) {
  /** The accounts of `provider` the tenant had before its current one, newest first. */
  async function pastAccounts(tenantId: string, provider: 'lyra' | 'stripe'): Promise<ProviderAccountRow[]> {
    const r = await db.query<ProviderAccountRow>(
      `SELECT ${VERSION_COLUMNS}
         FROM provider_account_versions v
        WHERE v.tenant_id = $1 AND v.provider = $2
          AND NOT EXISTS (SELECT 1 FROM provider_accounts pa WHERE pa.tenant_id = v.tenant_id AND pa.version = v.version)
        ORDER BY v.version DESC`,
      [tenantId, provider],
    );
    return r.rows;
  }

  return {
    async find(tenantId: string): Promise<ProviderAccountRow | undefined> {
      const r = await db.query<ProviderAccountRow>(`SELECT ${COLUMNS} FROM provider_accounts WHERE tenant_id = $1`, [
        tenantId,
      ]);
      return r.rows[0];
    },
    /**
     * The hotels that take real payments (an account at a real provider), by name, at most
     * `limit`: a test clock must never touch their requests.
     */
    async liveTenants(limit: number): Promise<string[]> {
      const r = await db.query<{ name: string }>(
        `SELECT t.name FROM provider_accounts a JOIN tenants t ON t.id = a.tenant_id
          WHERE a.provider <> 'sandbox' ORDER BY t.name LIMIT $1`,
        [limit],
      );
      return r.rows.map((row) => row.name);
    },
    /** The accounts of several tenants in one query (a group of the daily job's holds). */
    async findMany(tenantIds: readonly string[]): Promise<ProviderAccountRow[]> {
      if (tenantIds.length === 0) return [];
      const r = await db.query<ProviderAccountRow>(
        `SELECT ${COLUMNS} FROM provider_accounts WHERE tenant_id = ANY($1::uuid[])`,
        [tenantIds],
      );
      return r.rows;
    },
    /**
     * A payment request's tenant and that tenant's account (none: undefined), in one query. A
     * deleted request's tenant is its history's (money can still arrive for it: a guest's old
     * tab), as the notification's own transaction finds it.
     */
    async forOrder(
      requestId: string,
    ): Promise<{ tenantId: string; account: ProviderAccountRow | undefined } | undefined> {
      const r = await db.query<ProviderAccountRow & { request_tenant_id: string }>(
        `WITH request AS (
           SELECT tenant_id FROM payment_requests WHERE id = $1
           UNION ALL
           (SELECT tenant_id FROM status_history
             WHERE payment_request_id = $1 AND NOT EXISTS (SELECT 1 FROM payment_requests WHERE id = $1)
             ORDER BY id DESC LIMIT 1)
         )
         SELECT request.tenant_id AS request_tenant_id, ${COLUMNS.split(', ')
           .map((c) => `pa.${c}`)
           .join(', ')}
           FROM request LEFT JOIN provider_accounts pa ON pa.tenant_id = request.tenant_id`,
        [requestId],
      );
      const row = r.rows[0];
      if (!row) return undefined;
      const { request_tenant_id, ...account } = row;
      return { tenantId: request_tenant_id, account: account.provider ? account : undefined };
    },
    /**
     * Creates or replaces the tenant's account; every change bumps the version, and the new
     * version is kept in the account history in the same statement (a tenant whose account was
     * removed starts after its last version, so a version names one account for good).
     */
    async set(tenantId: string, input: ProviderAccountInput): Promise<ProviderAccountRow> {
      const lyra = input.provider === 'lyra' ? input : undefined;
      const stripe = input.provider === 'stripe' ? input : undefined;
      const real = lyra ?? stripe;
      const r = await db.query<ProviderAccountRow>(
        `WITH saved AS (
           INSERT INTO provider_accounts (tenant_id, provider, shop_id, api_url, static_url, mode, secrets_sealed,
             webhook_endpoint_id, version)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8,
                   COALESCE((SELECT max(version) FROM provider_account_versions WHERE tenant_id = $1), 0) + 1)
           ON CONFLICT (tenant_id) DO UPDATE SET provider = EXCLUDED.provider, shop_id = EXCLUDED.shop_id,
             api_url = EXCLUDED.api_url, static_url = EXCLUDED.static_url, mode = EXCLUDED.mode,
             secrets_sealed = EXCLUDED.secrets_sealed, webhook_endpoint_id = EXCLUDED.webhook_endpoint_id,
             version = provider_accounts.version + 1, updated_at = now()
           RETURNING ${COLUMNS}
         ), kept AS (
           INSERT INTO provider_account_versions (tenant_id, version, provider, shop_id, api_url, static_url, mode,
             secrets_sealed, webhook_endpoint_id, created_at)
           SELECT tenant_id, version, provider, shop_id, api_url, static_url, mode, secrets_sealed, webhook_endpoint_id,
                  updated_at FROM saved
         )
         SELECT ${COLUMNS} FROM saved`,
        [
          tenantId,
          input.provider,
          lyra?.shopId ?? null,
          real?.apiUrl ?? null,
          lyra?.staticUrl ?? null,
          real?.mode ?? null,
          real?.secretsSealed ?? null,
          stripe?.webhookEndpointId ?? null,
        ],
      );
      return r.rows[0] as ProviderAccountRow;
    },
    /** One account the tenant had (or has), by version: what an old ledger row's call went to. */
    async findVersion(tenantId: string, version: number): Promise<ProviderAccountRow | undefined> {
      const r = await db.query<ProviderAccountRow>(
        `SELECT ${VERSION_COLUMNS} FROM provider_account_versions v WHERE v.tenant_id = $1 AND v.version = $2`,
        [tenantId, version],
      );
      return r.rows[0];
    },
    /**
     * The Lyra accounts the tenant had before its current one, newest first: a notification
     * about money one of them took (a form handed out before an account switch) is signed with
     * that account's password.
     */
    pastLyraAccounts(tenantId: string): Promise<ProviderAccountRow[]> {
      return pastAccounts(tenantId, 'lyra');
    },
    /** The same for Stripe: an event of an old account is signed with that account's webhook secret. */
    pastStripeAccounts(tenantId: string): Promise<ProviderAccountRow[]> {
      return pastAccounts(tenantId, 'stripe');
    },
    /**
     * Every tenant's current Stripe account: the keys an event that names no request of payreq's
     * (another sale on the hotel's Stripe account) is checked with before it is acknowledged.
     */
    async stripeAccounts(): Promise<ProviderAccountRow[]> {
      const r = await db.query<ProviderAccountRow>(
        `SELECT ${COLUMNS} FROM provider_accounts WHERE provider = 'stripe' ORDER BY tenant_id`,
      );
      return r.rows;
    },
    /**
     * The request whose ledger names a Stripe PaymentIntent an event is about, its tenant and
     * that tenant's account: how an event that carries no metadata of payreq's (a dispute, an
     * expired charge) finds its request (the partial index of 0110_stripe_accounts.sql).
     */
    async forStripeTransaction(
      transactionId: string,
    ): Promise<{ requestId: string; tenantId: string; account: ProviderAccountRow | undefined } | undefined> {
      const r = await db.query<{ payment_request_id: string; tenant_id: string }>(
        `SELECT payment_request_id, tenant_id FROM money_ledger
          WHERE provider = 'stripe' AND provider_transaction_id = $1
          ORDER BY id LIMIT 1`,
        [transactionId],
      );
      const row = r.rows[0];
      if (!row) return undefined;
      const account = await db.query<ProviderAccountRow>(
        `SELECT ${COLUMNS} FROM provider_accounts WHERE tenant_id = $1`,
        [row.tenant_id],
      );
      return { requestId: row.payment_request_id, tenantId: row.tenant_id, account: account.rows[0] };
    },
    async remove(tenantId: string): Promise<boolean> {
      const r = await db.query('DELETE FROM provider_accounts WHERE tenant_id = $1', [tenantId]);
      return r.rowCount > 0;
    },
  };
}
export type ProviderAccountsRepository = ReturnType<typeof providerAccountsRepository>;
