import type { PaymentRequestRow, RequestSummaryFields } from '../db/index.js';
import { fromMinorUnits, orderCycle, TERMINAL_STATUSES } from '../domain/index.js';

/**
 * The detail of a payment request, defined once: the API answers it (GET one request, the
 * list) and every event carries it as `data`. Events are written by the status_history
 * trigger in SQL, in the same statement as the change (the daily job writes thousands in one
 * statement), so the same table of fields also writes the SQL function the trigger calls,
 * `payment_request_detail(p)`: `requestDetailFunctionSql()` below is that function's text,
 * and the newest migration that defines it must hold exactly this text (a test checks), so a
 * change of the detail here without a new migration fails the suite.
 */
type Source = RequestSummaryFields &
  Pick<
    PaymentRequestRow,
    | 'reservation_data'
    | 'masked_pan'
    | 'card_expiry_month'
    | 'card_expiry_year'
    | 'email_sent'
    | 'created_at'
    | 'updated_at'
    | 'hold_expires_at'
    | 'link_expires_at'
    | 'guarantee_failed_at'
    | 'guarantee_failures'
  >;

type Instant = 'created_at' | 'updated_at' | 'hold_expires_at' | 'link_expires_at' | 'guarantee_failed_at';

/**
 * How a field is shown: as stored (`value`), minor units as a decimal amount (`money`), an
 * instant as an ISO 8601 UTC string with milliseconds or null (`instant`), or the status as
 * OPEN/CLOSED (`order_cycle`).
 */
type Field =
  | { kind: 'value'; column: keyof Source }
  | { kind: 'money'; column: 'amount' | 'amount_captured' | 'amount_refunded' }
  | { kind: 'instant'; column: Instant }
  | { kind: 'order_cycle' };

const value = (column: keyof Source): Field => ({ kind: 'value', column });
const money = (column: 'amount' | 'amount_captured' | 'amount_refunded'): Field => ({ kind: 'money', column });
const instant = (column: Instant): Field => ({
  kind: 'instant',
  column,
});

export interface RequestDetail {
  uuid: string;
  reference: string;
  request_type: Source['request_type'];
  status: Source['status'];
  amount: number;
  amount_captured: number;
  amount_refunded: number;
  currency: Source['currency'];
  guest_email: string;
  guest_first_name: string;
  guest_last_name: string;
  reservation_ref: string;
  reservation_data: Source['reservation_data'];
  masked_pan: string;
  card_expiry_month: number | null;
  card_expiry_year: number | null;
  order_cycle: 'OPEN' | 'CLOSED';
  email_sent: boolean;
  created_at: string;
  updated_at: string;
  hold_expires_at: string | null;
  link_expires_at: string;
  /** IMPRINT: when the bank last refused the guarantee's hold; null while none was refused. */
  guarantee_failed_at: string | null;
  /** IMPRINT: how many holds the bank refused (each card the guest gave, once). */
  guarantee_failures: number;
}

/** The detail's fields in the order the API shows them; guest_phone and language never leave. */
const FIELDS = {
  uuid: value('id'),
  reference: value('reference'),
  request_type: value('request_type'),
  status: value('status'),
  amount: money('amount'),
  amount_captured: money('amount_captured'),
  amount_refunded: money('amount_refunded'),
  currency: value('currency'),
  guest_email: value('guest_email'),
  guest_first_name: value('guest_first_name'),
  guest_last_name: value('guest_last_name'),
  reservation_ref: value('reservation_ref'),
  reservation_data: value('reservation_data'),
  masked_pan: value('masked_pan'),
  card_expiry_month: value('card_expiry_month'),
  card_expiry_year: value('card_expiry_year'),
  order_cycle: { kind: 'order_cycle' },
  email_sent: value('email_sent'),
  created_at: instant('created_at'),
  updated_at: instant('updated_at'),
  hold_expires_at: instant('hold_expires_at'),
  link_expires_at: instant('link_expires_at'),
  guarantee_failed_at: instant('guarantee_failed_at'),
  guarantee_failures: value('guarantee_failures'),
} as const satisfies Record<keyof RequestDetail, Field>; // every field of the detail, and no other

function present(f: Field, r: Source): unknown {
  switch (f.kind) {
    case 'value':
      return r[f.column];
    case 'money':
      return fromMinorUnits(r[f.column]);
    case 'instant': {
      const at = r[f.column];
      return at ? at.toISOString() : null;
    }
    case 'order_cycle':
      return orderCycle(r.status);
  }
}

/** The detail of a request, as the API answers it and events carry it. */
export function presentRequestDetail(r: Source): RequestDetail {
  const detail: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(FIELDS)) detail[name] = present(f, r);
  return detail as unknown as RequestDetail;
}

function sql(f: Field): string {
  switch (f.kind) {
    case 'value':
      return `p.${f.column}`;
    case 'money':
      return `(p.${f.column} / 100.0)::float8`;
    case 'instant':
      return `to_char(p.${f.column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
    case 'order_cycle':
      return `CASE WHEN p.status IN (${TERMINAL_STATUSES.map((s) => `'${s}'`).join(', ')}) THEN 'CLOSED' ELSE 'OPEN' END`;
  }
}

/**
 * The SQL function that builds the same detail from a payment_requests row, for the events
 * trigger. A single SQL expression declared STABLE: PostgreSQL inlines it into the trigger's
 * statement, so it costs what the expression written in place cost.
 */
export function requestDetailFunctionSql(): string {
  const args = Object.entries(FIELDS).map(([name, f]) => `    '${name}', ${sql(f)}`);
  return [
    'CREATE OR REPLACE FUNCTION payment_request_detail(p payment_requests) RETURNS jsonb',
    'LANGUAGE sql STABLE AS $$',
    '  SELECT jsonb_build_object(',
    args.join(',\n'),
    '  )',
    '$$;',
  ].join('\n');
}
