import type { ProviderAccountRow } from '../db/index.ts';

/**
 * The account as anyone may see it: never a secret, not even sealed. `configured`: the tenant
 * takes payments with a real provider account (the sandbox is none).
 */
export function presentProviderAccount(row: ProviderAccountRow | undefined): Record<string, unknown> {
  if (!row) return { provider: 'none', configured: false };
  return {
    provider: row.provider,
    configured: row.provider === 'lyra',
    ...(row.provider === 'lyra'
      ? { shop_id: row.shop_id, api_url: row.api_url, static_url: row.static_url, mode: row.mode }
      : {}),
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

/** One line: `payreq tenant show`, the back office's settings. */
export function describeProviderAccount(row: ProviderAccountRow | undefined): string {
  if (row?.provider === 'lyra') {
    return `lyra  shop ${row.shop_id}  ${row.mode}  ${row.api_url}${row.static_url ? `  static ${row.static_url}` : ''}`;
  }
  return row
    ? 'sandbox (no real payments)'
    : 'none: the sandbox where the instance allows it (PAYMENT_PROVIDER=sandbox), otherwise no payments';
}
