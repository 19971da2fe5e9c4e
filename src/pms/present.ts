import type { ConnectionRow, PostingRow } from './pms-repository.ts';

/**
 * A posting as the command line (`payreq pms postings --json`) and `tenant show` give it:
 * `operation` is the money ledger row it posts, `amount` decimal in the currency's unit,
 * `reason` Apaleo's (a refusal) or the last error while it is pending.
 */
export function presentPosting(p: PostingRow): Record<string, unknown> {
  return {
    request: p.payment_request_id,
    reference: p.reference,
    operation: p.ledger_id,
    kind: p.kind,
    amount: p.amount / 100,
    currency: p.currency,
    state: p.state,
    reason: p.reason,
    apaleo_id: p.apaleo_id,
    posted_at: p.posted_at ? new Date(p.posted_at).toISOString() : null,
  };
}

/** The tenant's connection as anyone may see it: never a secret, not even sealed. null: none. */
export function presentPms(c: ConnectionRow | undefined, last: PostingRow | undefined): Record<string, unknown> | null {
  if (!c) return null;
  return {
    kind: c.kind,
    property_id: c.property_id,
    property_name: c.property_name,
    api_url: c.api_url,
    identity_url: c.identity_url,
    reservation_rule: c.reservation_rule
      ? { kind: c.reservation_rule, ...(c.reservation_rule === 'imprint' ? {} : { value: c.reservation_rule_value }) }
      : null,
    last_posting: last ? presentPosting(last) : null,
  };
}

/** One line: `payreq tenant show`. */
export function describePms(c: ConnectionRow | undefined): string {
  if (!c) return 'none';
  return `apaleo  property ${c.property_id}${c.property_name ? ` (${c.property_name})` : ''}  ${c.api_url}`;
}
