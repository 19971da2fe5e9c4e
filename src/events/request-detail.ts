import { type Static, type TObject, type TSchema, Type } from 'typebox';
import {
  type Currency,
  DECLINE_REASON_CODES,
  fromMinorUnits,
  MAX_REASON_NOTE,
  MONEY_REASONS,
  orderCycle,
  type RequestType,
  type Status,
  TERMINAL_STATUSES,
} from '../domain/index.ts';
import {
  FreeObject,
  NullableInt,
  NullableTimestamp,
  OrderCycle,
  RequestTypeEnum,
  StatusEnum,
  Timestamp,
  Uuid,
} from '../schemas/index.ts';

/**
 * The detail of a payment request, defined once: the API answers it (GET one request, the
 * list) and every event carries it as `data`. Events are written by the status_history
 * trigger in SQL, in the same statement as the change (the daily job writes thousands in one
 * statement), so the same table of fields also writes the SQL function the trigger calls,
 * `payment_request_detail(p)`: `requestDetailFunctionSql()` below is that function's text. It
 * writes the SELECT list from which the database makes GET one request's JSON, too
 * (`requestDetailColumnsSql()`); the list presents its rows here, in Node. A
 * migration that changes it holds the directive the migrator replaces with this text
 * (db/generated-sql.ts); a change of the detail here without a new such migration fails the
 * suite and the migrator.
 */
/**
 * The columns of a stored request the detail reads (the database's rows have them all; the
 * shape is spelled here so that this room does not import the database's).
 */
interface Source {
  id: string;
  tenant_id: string;
  reference: string;
  request_type: RequestType;
  status: Status;
  amount: number;
  amount_captured: number;
  amount_refunded: number;
  currency: Currency;
  guest_email: string;
  guest_first_name: string;
  guest_last_name: string;
  reservation_ref: string;
  reservation_data: Record<string, unknown>;
  masked_pan: string;
  card_expiry_month: number | null;
  card_expiry_year: number | null;
  email_sent: boolean;
  created_at: Date;
  updated_at: Date;
  hold_expires_at: Date | null;
  link_expires_at: Date;
  guarantee_failed_at: Date | null;
  guarantee_failures: number;
  hold_decline_reason: string | null;
  hold_decline_code: string | null;
  capture_reason: string | null;
  capture_note: string | null;
  refund_reason: string | null;
  refund_note: string | null;
  released_at: Date | null;
  decline_reason: string | null;
  decline_code: string | null;
  replaces: string | null;
  replaced_by: string | null;
}

type Instant =
  | 'created_at'
  | 'updated_at'
  | 'hold_expires_at'
  | 'link_expires_at'
  | 'guarantee_failed_at'
  | 'released_at';

/**
 * How a field is shown: as stored (`value`), minor units as a decimal amount (`money`), an
 * instant as an ISO 8601 UTC string with milliseconds or null (`instant`), or the status as
 * OPEN/CLOSED (`order_cycle`); and its JSON schema, from which the OpenAPI document and the
 * RequestDetail type are made.
 */
type Field<S extends TSchema = TSchema> = (
  | { kind: 'value'; column: keyof Source }
  | { kind: 'money'; column: 'amount' | 'amount_captured' | 'amount_refunded' }
  | { kind: 'instant'; column: Instant }
  | { kind: 'order_cycle' }
) & { schema: S };

const value = <S extends TSchema>(column: keyof Source, schema: S) => ({ kind: 'value' as const, column, schema });
const money = (column: 'amount' | 'amount_captured' | 'amount_refunded', description: string) => ({
  kind: 'money' as const,
  column,
  schema: Type.Number({ description }),
});
const instant = <S extends TSchema>(column: Instant, schema: S) => ({ kind: 'instant' as const, column, schema });
/** A money move's reason (the closed list) or its note, null when none was given. */
const moveReason = (description: string) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], enum: [...MONEY_REASONS, null], description });
const moveNote = (description: string) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength: MAX_REASON_NOTE, description });

/**
 * The detail, defined once: each field's source (a column of the request, shown as it is or
 * converted) and its schema, in the order the API shows them; guest_phone and language never
 * leave. The API's response schema, the RequestDetail type, the presenter and the SQL function
 * of the events trigger are all made from this table.
 */
const FIELDS = {
  uuid: value('id', Uuid),
  reference: value('reference', Type.String()),
  request_type: value('request_type', RequestTypeEnum),
  status: value('status', StatusEnum),
  amount: money('amount', 'Amount requested, in currency units'),
  amount_captured: money('amount_captured', 'Amount actually debited'),
  amount_refunded: money('amount_refunded', 'Amount refunded'),
  currency: value('currency', Type.String()),
  guest_email: value('guest_email', Type.String()),
  guest_first_name: value('guest_first_name', Type.String()),
  guest_last_name: value('guest_last_name', Type.String()),
  reservation_ref: value('reservation_ref', Type.String()),
  reservation_data: value('reservation_data', FreeObject),
  masked_pan: value('masked_pan', Type.String({ description: 'Masked card number; empty until a card is registered' })),
  card_expiry_month: value('card_expiry_month', NullableInt),
  card_expiry_year: value('card_expiry_year', NullableInt),
  order_cycle: { kind: 'order_cycle' as const, schema: OrderCycle },
  email_sent: value('email_sent', Type.Boolean({ description: 'The confirmation e-mail was sent' })),
  created_at: instant('created_at', Timestamp),
  updated_at: instant('updated_at', Timestamp),
  hold_expires_at: instant('hold_expires_at', NullableTimestamp),
  link_expires_at: instant('link_expires_at', Timestamp),
  guarantee_failed_at: instant(
    'guarantee_failed_at',
    Type.Unsafe<string | null>({
      type: ['string', 'null'],
      format: 'date-time',
      description:
        'IMPRINT: when the bank last refused a hold for good (a failed guarantee): the hold placed before arrival (the request is then ERROR until the guest registers another card through the same link), or the renewal of a live hold (the request stays AUTHORISED_TO_VALIDATE, the old hold guaranteeing until it lapses, and a new card given through the link replaces it); null while none was refused for good. An addition to the original integration contract.',
    }),
  ),
  guarantee_failures: value(
    'guarantee_failures',
    Type.Integer({
      minimum: 0,
      description:
        'IMPRINT: how many holds the bank refused for this request, soft declines, refused renewals and refused replacement cards included (0 for a DEPOSIT). An addition.',
    }),
  ),
  hold_decline_reason: value(
    'hold_decline_reason',
    Type.Unsafe<string | null>({
      type: ['string', 'null'],
      enum: [...DECLINE_REASON_CODES, null],
      description:
        'IMPRINT: why the bank declined the last hold payreq tried to place, on a closed list (insufficient_funds, try_again_later and provider_error are soft: tried again at the next daily run until the check-in day; the others end the guarantee); null when none was declined since the card was registered or the hold placed. An addition.',
    }),
  ),
  hold_decline_code: value(
    'hold_decline_code',
    Type.Unsafe<string | null>({
      type: ['string', 'null'],
      description:
        "IMPRINT: that decline's code as the payment provider gave it (Lyra: `ACQ_001/51`, the bank's answer code after the slash); null with hold_decline_reason. An addition.",
    }),
  ),
  capture_reason: value(
    'capture_reason',
    moveReason(
      'Why the hotel captured the hold (no_show, late_cancellation, early_departure, damage, extras, goodwill, duplicate, guest_request, billing_error, other), as given with the capture; null when none was given, and for a DEPOSIT (paid by the guest). An addition.',
    ),
  ),
  capture_note: value('capture_note', moveNote("The capture's free note; null when none was given. An addition.")),
  refund_reason: value(
    'refund_reason',
    moveReason(
      "Why the hotel made the last refund (same list as capture_reason); null when it gave none or nothing was refunded. A `payment_request.refunded` or `payment_request.partially_refunded` event carries that refund's. An addition.",
    ),
  ),
  refund_note: value('refund_note', moveNote("The last refund's free note; null when none was given. An addition.")),
  released_at: instant(
    'released_at',
    Type.Unsafe<string | null>({
      type: ['string', 'null'],
      format: 'date-time',
      description:
        'IMPRINT: when the hotel released the hold without a debit (the guest arrived, or nothing was owed). The status stays CANCELLED, as for a cancelled request: released_at tells the two apart (a release is also the event `payment_request.released`). Null otherwise. An addition.',
    }),
  ),
  decline_reason: value(
    'decline_reason',
    Type.Unsafe<string | null>({
      type: ['string', 'null'],
      enum: [...DECLINE_REASON_CODES, null],
      description:
        "Why the bank refused the guest's card on the payment page, when that refusal made the request REFUSED: the same closed list as hold_decline_reason (`other` for a code payreq does not know). REFUSED is final: the hotel sends the guest a new request (see `replaced_by`). Null otherwise. An addition.",
    }),
  ),
  decline_code: value(
    'decline_code',
    Type.Unsafe<string | null>({
      type: ['string', 'null'],
      description:
        "That refusal's code as the payment provider gave it (Lyra: `ACQ_001/51`, the bank's answer code after the slash; the sandbox: its reason); null when the provider gave none, and with decline_reason. An addition.",
    }),
  ),
  replaces: value(
    'replaces',
    Type.Unsafe<string | null>({
      type: ['string', 'null'],
      format: 'uuid',
      description:
        'The uuid of the REFUSED or EXPIRED request this one was made to replace (the hotel\'s "Send a new link": same guest, amount, currency, type, reservation_ref and reservation_data); null for a request made otherwise, or once that request is deleted. An addition.',
    }),
  ),
  replaced_by: value(
    'replaced_by',
    Type.Unsafe<string | null>({
      type: ['string', 'null'],
      format: 'uuid',
      description:
        'The uuid of the request made to replace this one (REFUSED or EXPIRED, both final), whose link the guest was sent instead; at most one. Null while none was made, or once it is deleted. An addition.',
    }),
  ),
} satisfies Record<string, Field>;

type Fields = typeof FIELDS;

/** Each field's schema, by name: the API's PaymentRequestDetail is this object. */
export const REQUEST_DETAIL_PROPERTIES = Object.fromEntries(
  Object.entries(FIELDS).map(([name, f]) => [name, f.schema]),
) as { [K in keyof Fields]: Fields[K]['schema'] };

/** The detail as the API answers it and events carry it. */
export type RequestDetail = Static<TObject<typeof REQUEST_DETAIL_PROPERTIES>>;

/** How one field is read from a row: chosen once per field, not at every row. */
function reader(f: Field): (r: Source) => unknown {
  switch (f.kind) {
    case 'value': {
      const column = f.column;
      return (r) => r[column];
    }
    case 'money': {
      const column = f.column;
      return (r) => fromMinorUnits(r[column]);
    }
    case 'instant': {
      const column = f.column;
      return (r) => r[column]?.toISOString() ?? null;
    }
    case 'order_cycle':
      return (r) => orderCycle(r.status);
  }
}

// Built once: a list or an export presents every row it reads, and walking FIELDS afresh at
// each row (its entries, then a switch on each field's kind) took most of a row's time.
const READERS = Object.entries(FIELDS).map(([name, f]) => [name, reader(f)] as const);

/** The detail of a request, as the API answers it and events carry it. */
export function presentRequestDetail(r: Source): RequestDetail {
  const detail: Record<string, unknown> = {};
  for (const [name, read] of READERS) detail[name] = read(r);
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
 * The detail's fields as a SELECT list over the request `p`, each named as the API names it
 * and written by the expression the events' function uses, in the API's order: the row
 * `row_to_json` makes of it is the detail as JSON text, without spaces, as the presenter and
 * the serializer write it. Its one difference: `reservation_data` is written as the database
 * keeps it (the same keys in the same order, with a space after each `:` and `,`, and its
 * numbers as they were sent).
 */
export function requestDetailColumnsSql(): string {
  return Object.entries(FIELDS)
    .map(([name, f]) => `${sql(f)} AS "${name}"`)
    .join(',\n  ');
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
