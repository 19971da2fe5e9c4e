import type { Repositories } from '../db/index.ts';
import type { RemittanceRow } from './remittances-repository.ts';

/** A remittance as the CLI's JSON and the export give it: amounts decimal in the currency's unit, as the API does. */
export function presentRemittance(r: RemittanceRow) {
  return {
    remittance_nb: r.remittance_nb,
    remittance_date: r.remittance_date,
    currency: r.currency,
    gross: r.gross / 100,
    fees: r.fees / 100,
    net: r.net / 100,
    lines: r.line_count,
    matched: r.matched_count,
    unmatched: r.line_count - r.matched_count,
  };
}

/**
 * The provider a hotel's remittances come from: its account's (Lyra), else the instance's
 * default provider for hotels without one (the sandbox, in development and demos).
 */
export async function tenantProvider(
  repos: Pick<Repositories, 'providerAccounts'>,
  fallback: string,
  tenantId: string,
): Promise<string> {
  const account = await repos.providerAccounts.find(tenantId);
  return account?.provider ?? fallback;
}
