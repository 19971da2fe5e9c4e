import type { ProviderAccountRow } from '../db/index.ts';
import { STRIPE_WEBHOOK_EVENTS } from '../providers/index.ts';
import { stripeWebhookUrl } from './provider-account-setup.ts';

/** What the presenter needs beside the row: where the instance is reached (a Stripe webhook's address). */
export interface PresentOptions {
  publicBaseUrl: string;
}

/**
 * The account as anyone may see it: never a secret, not even sealed. `configured`: the tenant
 * takes payments with a real provider account (the sandbox is none). A Stripe account says
 * where Stripe sends its events and which, and whether payreq created that endpoint itself.
 */
export function presentProviderAccount(
  row: ProviderAccountRow | undefined,
  opts: PresentOptions,
): Record<string, unknown> {
  if (!row) return { provider: 'none', configured: false };
  const times = {
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
  if (row.provider === 'stripe') {
    return {
      provider: 'stripe',
      mode: row.mode,
      configured: true,
      api_url: row.api_url,
      webhook_url: stripeWebhookUrl(opts.publicBaseUrl),
      webhook_events: [...STRIPE_WEBHOOK_EVENTS],
      webhook_endpoint_created: row.webhook_endpoint_id !== null,
      ...times,
    };
  }
  return {
    provider: row.provider,
    configured: row.provider === 'lyra',
    ...(row.provider === 'lyra'
      ? { shop_id: row.shop_id, api_url: row.api_url, static_url: row.static_url, mode: row.mode }
      : {}),
    ...times,
  };
}

/** One line: `payreq tenant show`, the back office's settings. */
export function describeProviderAccount(row: ProviderAccountRow | undefined): string {
  if (row?.provider === 'lyra') {
    return `lyra  shop ${row.shop_id}  ${row.mode}  ${row.api_url}${row.static_url ? `  static ${row.static_url}` : ''}`;
  }
  if (row?.provider === 'stripe') {
    return `stripe  ${row.mode}  ${row.api_url}  webhook endpoint ${row.webhook_endpoint_id ? `created by payreq (${row.webhook_endpoint_id})` : 'configured by the operator'}`;
  }
  return row
    ? 'sandbox (no real payments)'
    : 'none: the sandbox where the instance allows it (PAYMENT_PROVIDER=sandbox), otherwise no payments';
}
