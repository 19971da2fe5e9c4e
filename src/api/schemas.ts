import { type Static, type TSchema, Type } from 'typebox';
import {
  CURRENCIES,
  EMAIL_PATTERN,
  errors,
  LANGUAGES,
  MAX_AMOUNT,
  MAX_REASON_NOTE,
  MONEY_REASONS,
  type MoneyReason,
  NAME_TEXT_PATTERN,
  NOTE_TEXT_PATTERN,
  PLAIN_TEXT_PATTERN,
  STORABLE_TEXT_PATTERN,
  WELL_FORMED_KEYWORD,
} from '../domain/index.ts';
import { REQUEST_DETAIL_PROPERTIES } from '../events/index.ts';
import { OrderCycle, RequestTypeEnum, StatusEnum, Timestamp, Uuid } from '../schemas/index.ts';

/**
 * One schema per route and status code: it validates the request, types the handler,
 * strips what must not leave (no guest_phone in the detail) and generates the OpenAPI document.
 *
 * A schema given a `title` is a named schema: the OpenAPI document lists it once under
 * components.schemas and refers to it wherever it is used (openapi-document.ts), so generated
 * clients get types with these names. Fastify itself sees plain inline schemas.
 */
/**
 * Free text that PostgreSQL can store as given: no NUL (the pattern, portable to every regex
 * dialect) and no unpaired surrogate (the extension keyword the service's validator checks).
 */
const Text = (opts: { minLength?: number; maxLength: number; description?: string }) =>
  Type.String({ ...opts, pattern: STORABLE_TEXT_PATTERN, [WELL_FORMED_KEYWORD]: true });
/** A name or a reference: storable text without bidirectional controls. */
const PlainText = (opts: { minLength?: number; maxLength: number; description?: string }) =>
  Type.String({ ...opts, pattern: PLAIN_TEXT_PATTERN, [WELL_FORMED_KEYWORD]: true });

/** A guest's name: plain text on one line (no line break, no control character). */
const NameText = (opts: { minLength?: number; maxLength: number; description?: string }) =>
  Type.String({ ...opts, pattern: NAME_TEXT_PATTERN, [WELL_FORMED_KEYWORD]: true });

/** A realistic reservation, shared by the examples of the document. */
export const EXAMPLE = {
  uuid: '6f0c2b1e-4d4a-4c43-9b0e-6a2f9c1d7e55',
  reference: 'DEP-2026-0042',
  reservation_ref: 'BK-4711',
  reservation_data: { checkin: '2026-12-24', checkout: '2026-12-27', room_type: 'Double Deluxe', adults: 2 },
  created_at: '2026-11-23T09:14:05.120Z',
} as const;

export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'Human-readable message' }),
    code: Type.String({ description: 'Stable machine-readable code; docs/errors.md lists every code and what to do' }),
  },
  {
    additionalProperties: true,
    title: 'Error',
    examples: [{ error: 'Payment request 6f0c… not found.', code: 'not_found' }],
  },
);
/** A 409 while another operation holds the request: `in_doubt` names it when its outcome is unknown. */
export const InProgressErrorBody = Type.Object(
  {
    error: Type.String({ description: 'Human-readable message' }),
    code: Type.String({ description: 'operation_in_progress or idempotency_key_in_progress' }),
    in_doubt: Type.Optional(
      Type.Object(
        {
          action: Type.String({ description: 'The operation in doubt: capture, release, refund or hold' }),
          amount: Type.Optional(Type.Number({ description: 'Its amount in currency units; absent for a release' })),
          currency: Type.String(),
          requested_at: Timestamp,
        },
        {
          description:
            'The operation whose provider answer was lost: it may have happened. Nothing was sent for this call. Only a retry of that operation, under its own Idempotency-Key, answers its outcome (504 outcome_unknown while still unknown).',
        },
      ),
    ),
  },
  {
    additionalProperties: true,
    title: 'InProgressError',
    examples: [
      {
        error: 'Another operation (capture) is in progress on this payment request; retry shortly',
        code: 'operation_in_progress',
      },
    ],
  },
);
export const ValidationErrorBody = Type.Object(
  {
    error: Type.String(),
    code: Type.String({ description: 'validation_failed' }),
    details: Type.Array(
      Type.Object({
        field: Type.String({ description: 'Dotted path of the field, e.g. reservation_data.checkin' }),
        message: Type.String(),
        code: Type.Optional(
          Type.String({
            description:
              'What is wrong, stable: required, too_long, too_short, wrong_type, not_allowed, format_email, unstorable_text, plain_text, amount_negative, amount_too_large, amount_decimals, date_format, checkout_before_checkin',
          }),
        ),
      }),
    ),
  },
  {
    title: 'ValidationError',
    examples: [
      {
        error: 'Validation failed',
        code: 'validation_failed',
        details: [{ field: 'guest_email', message: 'must match format "email"' }],
      },
    ],
  },
);
export const AuthErrorBody = Type.Object(
  {
    detail: Type.Optional(Type.String({ description: 'Same text as error, on authentication failures' })),
    error: Type.String(),
    code: Type.String({ description: 'unauthorized, api_key_revoked, api_key_expired or https_required' }),
  },
  { title: 'AuthError', examples: [{ detail: 'Unauthorized', error: 'Unauthorized', code: 'unauthorized' }] },
);

/**
 * A stay's date as the service reads one: a calendar day (`format: date`) of a year from 0100
 * (the pattern: years 0000 to 0099 are not accepted, a date library reads 00YY as 19YY).
 */
const StayDate = (description: string) =>
  Type.String({ format: 'date', pattern: '^(?:0[1-9]|[1-9][0-9])[0-9]{2}-[0-9]{2}-[0-9]{2}$', description });

/** The amount's rules as the schema states them: 0 to MAX_AMOUNT, two decimals at most. */
export const AMOUNT_RULES = { minimum: 0, maximum: MAX_AMOUNT, multipleOf: 0.01 } as const;

export const CreateBody = Type.Object(
  {
    request_type: RequestTypeEnum,
    amount: Type.Optional(
      Type.Number({
        ...AMOUNT_RULES,
        description:
          'Currency units, at most two decimals (120.50), at most 1,000,000. Required above 0 for a DEPOSIT (400 deposit_amount_required otherwise); for an IMPRINT the most that may be captured on a no-show.',
      }),
    ),
    currency: Type.Optional(Type.Enum([...CURRENCIES], { default: 'EUR', description: 'ISO 4217' })),
    guest_email: Type.String({
      pattern: EMAIL_PATTERN,
      maxLength: 254,
      description:
        'A dot-atom local part and a domain of two labels or more (`jeanne.martin@example.com`); no quoted local part, no address literal, no single-label domain (422 format_email)',
    }),
    guest_first_name: NameText({ minLength: 1, maxLength: 100 }),
    guest_last_name: NameText({ minLength: 1, maxLength: 100 }),
    guest_phone: Type.Optional(Text({ maxLength: 32 })),
    language: Type.Optional(
      Type.Enum([...LANGUAGES], { default: 'fr', description: 'Language of the guest page and e-mails' }),
    ),
    reservation_ref: PlainText({ minLength: 1, maxLength: 100, description: 'The booking reference in the PMS' }),
    reservation_data: Type.Optional(
      Type.Object(
        {
          checkin: Type.Optional(StayDate('The first night; for an IMPRINT, the hold is placed two days before')),
          checkout: Type.Optional(StayDate('The day of departure: not before `checkin`')),
        },
        {
          additionalProperties: true,
          description:
            'Free JSON (at most 16 KiB of it, with no NUL or unpaired surrogate in any key or text). `checkin` and `checkout` (YYYY-MM-DD, `checkout` not before `checkin`) and `room_type` are shown to the guest; for an IMPRINT, `checkin` triggers the hold two days before.',
        },
      ),
    ),
  },
  {
    title: 'CreatePaymentRequest',
    // A DEPOSIT is paid at once: it needs an amount above 0 (400 deposit_amount_required).
    if: { properties: { request_type: { const: 'DEPOSIT' } }, required: ['request_type'] },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, never awaited.
    then: { required: ['amount'], properties: { amount: { exclusiveMinimum: 0 } } },
    examples: [
      {
        request_type: 'DEPOSIT',
        amount: 120.5,
        currency: 'EUR',
        guest_email: 'jeanne.martin@example.com',
        guest_first_name: 'Jeanne',
        guest_last_name: 'Martin',
        guest_phone: '+33 6 12 34 56 78',
        language: 'fr',
        reservation_ref: EXAMPLE.reservation_ref,
        reservation_data: EXAMPLE.reservation_data,
      },
    ],
  },
);
export type CreateBody = Static<typeof CreateBody>;

export const PaymentRequestResponse = Type.Object(
  {
    uuid: Uuid,
    reference: Type.String({ description: 'DEP-YYYY-NNNN or IMP-YYYY-NNNN' }),
    status: StatusEnum,
    payment_link: Type.String({ description: 'Relative path of the guest payment form; prefix it with the base URL' }),
    warnings: Type.Optional(
      Type.Array(
        Type.Object({
          code: Type.String({ description: 'no_hold_will_be_placed: an IMPRINT without reservation_data.checkin' }),
          message: Type.String(),
        }),
        {
          description:
            'Present when the request was created but will not do all it could: an IMPRINT without `reservation_data.checkin` is never held by the daily job, so nothing can be captured on a no-show. Not part of the original contract (an addition; ignore it if you do not need it).',
        },
      ),
    ),
  },
  {
    title: 'PaymentRequestCreated',
    examples: [
      {
        uuid: EXAMPLE.uuid,
        reference: EXAMPLE.reference,
        status: 'NOT_INITIATED',
        payment_link: `/payment/${EXAMPLE.uuid}/`,
      },
    ],
  },
);

export const ActionResponse = Type.Object(
  { uuid: Uuid, reference: Type.String(), status: StatusEnum },
  {
    title: 'PaymentRequestAction',
    examples: [{ uuid: EXAMPLE.uuid, reference: 'IMP-2026-0017', status: 'CAPTURED' }],
  },
);

export const DETAIL_EXAMPLE = {
  uuid: EXAMPLE.uuid,
  reference: EXAMPLE.reference,
  request_type: 'DEPOSIT',
  status: 'CAPTURED',
  amount: 120.5,
  amount_captured: 120.5,
  amount_refunded: 0,
  currency: 'EUR',
  guest_email: 'jeanne.martin@example.com',
  guest_first_name: 'Jeanne',
  guest_last_name: 'Martin',
  reservation_ref: EXAMPLE.reservation_ref,
  reservation_data: EXAMPLE.reservation_data,
  masked_pan: '424242XXXXXX4242',
  card_expiry_month: 9,
  card_expiry_year: 2029,
  order_cycle: 'CLOSED',
  email_sent: true,
  created_at: EXAMPLE.created_at,
  updated_at: '2026-11-23T09:21:40.002Z',
  hold_expires_at: null,
  link_expires_at: '2026-12-23T09:14:05.120Z',
  guarantee_failed_at: null,
  guarantee_failures: 0,
  hold_decline_reason: null,
  hold_decline_code: null,
  capture_reason: null,
  capture_note: null,
  refund_reason: null,
  refund_note: null,
};

export const PaymentRequestDetail = Type.Object(REQUEST_DETAIL_PROPERTIES, {
  title: 'PaymentRequestDetail',
  examples: [DETAIL_EXAMPLE],
});

export const PaymentRequestStatus = Type.Object(
  {
    uuid: Uuid,
    reference: Type.String(),
    reservation_ref: Type.String(),
    request_type: RequestTypeEnum,
    status: StatusEnum,
    order_cycle: OrderCycle,
    amount: Type.Number(),
    amount_captured: Type.Number(),
  },
  {
    title: 'PaymentRequestStatus',
    examples: [
      {
        uuid: EXAMPLE.uuid,
        reference: EXAMPLE.reference,
        reservation_ref: EXAMPLE.reservation_ref,
        request_type: 'DEPOSIT',
        status: 'CAPTURED',
        order_cycle: 'CLOSED',
        amount: 120.5,
        amount_captured: 120.5,
      },
    ],
  },
);

const EVENT_TYPES_DESCRIPTION =
  '`payment_request.` and the new status in lower case (`payment_request.captured`), or `payment_request.partially_refunded` (part of the captured amount went back; the request stays CAPTURED), or `payment_request.released` (the hold of an IMPRINT was released, the guest having arrived: the request is CANCELLED as the contract says, but nothing was charged and the booking stands; `payment_request.cancelled` is a cancellation only), or `payment_request.hold_declined` (the bank declined the hold of an IMPRINT softly before the check-in day, e.g. insufficient funds: the request stays AUTHORISED and the next daily run tries again), or `payment_request.hold_renewed` (the hold of an IMPRINT was renewed before its card network lapsed it: `hold_expires_at` is the end of the new hold, the status stays AUTHORISED_TO_VALIDATE), or `payment_request.guarantee_failed` (the bank refused the hold of an IMPRINT before arrival for good, or on the check-in day: the request is ERROR, `guarantee_failed_at` and `guarantee_failures` say when and how often; the guest may register another card through the same link, and the next daily run holds it; or the bank refused to renew a hold: the status stays AUTHORISED_TO_VALIDATE until the old hold lapses, and a new card given through the link replaces it), or `payment_request.deleted`, or `payment_request.incident` (money arrived where it should not and was sent back automatically). Accept types you do not know: new ones may be added.';

export const EventBody = Type.Object(
  {
    id: Type.Integer({ description: 'Identifies the event; give it as `after` to read the events that follow' }),
    type: Type.String({ description: EVENT_TYPES_DESCRIPTION }),
    created_at: Timestamp,
    data: Type.Object(
      {
        uuid: Uuid,
        status: Type.String({ description: 'The status after the change; DELETED for a deleted request' }),
      },
      {
        additionalProperties: true,
        description:
          'The request at that moment, with the fields of PaymentRequestDetail. A deleted request keeps what was last known, with `previous_status`; an incident adds `incident`.',
      },
    ),
  },
  {
    title: 'Event',
    examples: [
      { id: 1842, type: 'payment_request.captured', created_at: DETAIL_EXAMPLE.updated_at, data: DETAIL_EXAMPLE },
    ],
  },
);

export const EventsQuery = Type.Object({
  after: Type.Optional(
    // Ids are bigint in the database; past 2^53 - 1 a JSON number no longer names one exactly.
    Type.Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'The id of the last event you processed; omitted: from the oldest kept',
    }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
});

export const MessageBody = Type.Object(
  { message: Type.String({ description: 'Names the reference deleted' }) },
  { title: 'Message', examples: [{ message: 'Payment request DEP-2026-0042 deleted.' }] },
);

export const UuidParams = Type.Object({ uuid: Type.String({ description: 'Identifier (UUID) of the request' }) });

export const ListQuery = Type.Object({
  status: Type.Optional(StatusEnum),
  request_type: Type.Optional(RequestTypeEnum),
  reservation_ref: Type.Optional(Text({ maxLength: 100 })),
  created_after: Type.Optional(
    Type.String({ format: 'date-time', description: 'Inclusive; from 0001-01-01 to 9999-12-31 UTC (outside: 422)' }),
  ),
  created_before: Type.Optional(
    Type.String({ format: 'date-time', description: 'Exclusive; from 0001-01-01 to 9999-12-31 UTC (outside: 422)' }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'Opaque; from the Link header' })),
  updated_after: Type.Optional(
    Type.String({
      format: 'date-time',
      description:
        'Only requests changed after this time (exclusive), oldest change first instead of newest first: for syncing; from 0001-01-01 to 9999-12-31 UTC (outside: 422)',
    }),
  ),
});
export type ListQuery = Static<typeof ListQuery>;

export const StatusesQuery = Type.Object({
  // Required in the document, as the route answers 400 without it; optional to the validator so
  // that a missing `refs` stays the documented 400 refs_required rather than a 422.
  refs: Type.Optional(
    Text({ description: 'Reservation references separated by commas (at most 500)', maxLength: 60_000 }),
  ),
});

/** Why the hotel moves the money, and its note: optional on a capture and a refund. */
const MOVE_REASON = {
  reason: {
    type: 'string',
    enum: [...MONEY_REASONS],
    description:
      "Why the hotel moves this money, on a closed list: no_show, late_cancellation, early_departure, damage, extras (minibar and other extras), goodwill, duplicate, guest_request, billing_error, other. Omitted: none given. Another value is refused (400 invalid_reason). Kept with the move: in the request's detail, its events, the back office's history and the ledger export.",
  },
  note: {
    type: 'string',
    maxLength: MAX_REASON_NOTE,
    pattern: NOTE_TEXT_PATTERN,
    [WELL_FORMED_KEYWORD]: true,
    description:
      'Free text beside the reason (what was damaged, what "other" is); tab and line breaks are text, other control characters are refused (400). Omitted or empty: none.',
  },
};
export interface MoveBody {
  amount?: number;
  reason?: MoneyReason;
  note?: string;
}

// One object-or-null schema rather than a union: a bad amount then yields one detail naming
// `amount`, not also "body must be null" and "must match a schema in anyOf" from the other branch.
export const RefundBody = Type.Unsafe<MoveBody | null>({
  type: ['object', 'null'],
  title: 'RefundRequest',
  properties: {
    amount: {
      type: 'number',
      exclusiveMinimum: 0,
      maximum: MAX_AMOUNT,
      multipleOf: 0.01,
      description:
        'Partial refund, at most two decimals, at most what is left to refund, at most 1,000,000 (422 amount_too_large); omitted: all of it',
    },
    ...MOVE_REASON,
  },
  examples: [{ amount: 40, reason: 'goodwill', note: 'Noisy room, one night back' }],
});

export const CaptureBody = Type.Unsafe<MoveBody | null>({
  type: ['object', 'null'],
  title: 'CaptureRequest',
  properties: {
    amount: {
      type: 'number',
      exclusiveMinimum: 0,
      maximum: MAX_AMOUNT,
      multipleOf: 0.01,
      description:
        'Partial capture, at most two decimals, at most the held amount, at most 1,000,000 (422 amount_too_large); omitted: all of it',
    },
    ...MOVE_REASON,
  },
  examples: [{ amount: 95, reason: 'no_show' }],
});

/**
 * An error response of one route: the shape of `base` with the `code` values this route can
 * answer, and a description. The document shows it as the named shape narrowed to those codes.
 */
export function errorResponse(
  base: TSchema,
  description: string,
  codes: readonly string[],
  sample = SAMPLE_ERRORS.get(codes[0] ?? ''),
): TSchema {
  const first = codes[0] ?? '';
  const example: Record<string, unknown> = { error: sample?.message ?? description, code: first, ...sample?.extra };
  if ((base as { title?: string }).title === 'AuthError') example.detail = example.error;
  if ((base as { title?: string }).title === 'ValidationError') example.details ??= [];
  return {
    ...base,
    examples: [example],
    'x-response-description': description,
    'x-error-codes': [...codes],
  } as TSchema;
}

/** The 409 of a money command while a capture is in doubt, for the examples of the document. */
export const IN_DOUBT_SAMPLE = errors.operationInProgress('capture', {
  action: 'capture',
  amount: 120.5,
  currency: 'EUR',
  requested_at: '2026-12-27T10:02:11.000Z',
});

/** One instance of each error of the catalogue, for the examples of the document. */
const SAMPLE_ERRORS = new Map(
  [
    errors.validation([{ field: 'guest_email', message: 'must match format "email"' }]),
    errors.depositAmountRequired(),
    errors.notFound(EXAMPLE.uuid),
    errors.invalidStatus('capture', 'AUTHORISED', ['AUTHORISED_TO_VALIDATE']),
    errors.cannotDelete('CAPTURED', 'kept for accounting; refund it in the administration interface'),
    errors.operationInProgress('capture'),
    errors.captureAmountTooHigh(12050),
    errors.refsRequired(),
    errors.invalidReason(MONEY_REASONS),
    errors.badCursor(),
    errors.invalidJson(),
    errors.unsupportedMediaType(),
    errors.payloadTooLarge(),
    errors.unauthorized(),
    errors.keyRevoked(),
    errors.idempotencyMismatch(),
    errors.idempotencyInProgress(),
    errors.invalidIdempotencyKey(),
    errors.providerUnavailable(),
    errors.providerRefused('the authorisation has expired'),
  ].map((e) => [e.code, e]),
);

/** A success response with its description (the document would otherwise say "Default Response"). */
export function okResponse<T extends TSchema>(schema: T, description: string): T {
  return { ...schema, 'x-response-description': description };
}

/** The authentication failures every /api route can answer. */
export const authErrors = {
  401: errorResponse(AuthErrorBody, 'The X-API-Key header is missing, malformed, unknown or disabled', [
    'unauthorized',
  ]),
  403: errorResponse(AuthErrorBody, 'The key is revoked or expired, or the call was not made over HTTPS', [
    'api_key_revoked',
    'api_key_expired',
    'https_required',
  ]),
};
