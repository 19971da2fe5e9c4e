import { type Static, Type } from 'typebox';
import {
  CURRENCIES,
  LANGUAGES,
  PLAIN_TEXT_PATTERN,
  REQUEST_TYPES,
  STATUSES,
  STORABLE_TEXT_PATTERN,
} from '../domain/index.js';

/**
 * One schema per route and status code: it validates the request, types the handler,
 * strips what must not leave (no guest_phone in the detail) and generates the OpenAPI document.
 */
const Uuid = Type.String({ format: 'uuid', description: 'Identifier of the payment request' });
const StatusEnum = Type.Enum([...STATUSES], { description: 'Status (SPEC section 3)' });
const RequestTypeEnum = Type.Enum([...REQUEST_TYPES]);
const Timestamp = Type.String({ format: 'date-time' });
const NullableInt = Type.Unsafe<number | null>({ type: ['integer', 'null'] });
const NullableTimestamp = Type.Unsafe<string | null>({ type: ['string', 'null'], format: 'date-time' });
/** Free text that PostgreSQL can store as given (no NUL, no unpaired surrogate). */
const Text = (opts: { minLength?: number; maxLength: number; description?: string }) =>
  Type.String({ ...opts, pattern: STORABLE_TEXT_PATTERN });
/** A name or a reference: storable text without bidirectional controls. */
const PlainText = (opts: { minLength?: number; maxLength: number; description?: string }) =>
  Type.String({ ...opts, pattern: PLAIN_TEXT_PATTERN });
const FreeObject = Type.Object({}, { additionalProperties: true, description: 'Free JSON, stored as given' });

export const ErrorBody = Type.Object(
  {
    error: Type.String(),
    code: Type.Optional(Type.String({ description: 'Stable machine-readable code' })),
  },
  { additionalProperties: true },
);
export const ValidationErrorBody = Type.Object({
  error: Type.String(),
  code: Type.Optional(Type.String()),
  details: Type.Array(Type.Object({ field: Type.String(), message: Type.String() })),
});
export const AuthErrorBody = Type.Object({
  detail: Type.Optional(Type.String({ description: 'Same text as error, on authentication failures' })),
  error: Type.String(),
  code: Type.Optional(Type.String()),
});

export const CreateBody = Type.Object({
  request_type: RequestTypeEnum,
  amount: Type.Optional(
    Type.Number({ description: 'Currency units, at most two decimals. Required above 0 for DEPOSIT.' }),
  ),
  currency: Type.Optional(Type.Enum([...CURRENCIES], { default: 'EUR' })),
  guest_email: Type.String({ format: 'email', maxLength: 254 }),
  guest_first_name: PlainText({ minLength: 1, maxLength: 100 }),
  guest_last_name: PlainText({ minLength: 1, maxLength: 100 }),
  guest_phone: Type.Optional(Text({ maxLength: 32 })),
  language: Type.Optional(Type.Enum([...LANGUAGES], { default: 'fr' })),
  reservation_ref: PlainText({ minLength: 1, maxLength: 100 }),
  reservation_data: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), {
      description:
        'Free JSON (at most 16 KiB). For an IMPRINT, `checkin` (YYYY-MM-DD) triggers the automatic pre-authorisation.',
    }),
  ),
});
export type CreateBody = Static<typeof CreateBody>;

export const PaymentRequestResponse = Type.Object({
  uuid: Uuid,
  reference: Type.String(),
  status: StatusEnum,
  payment_link: Type.String({ description: 'Relative path of the guest payment form' }),
});

export const ActionResponse = Type.Object({
  uuid: Uuid,
  reference: Type.String(),
  status: StatusEnum,
});

export const PaymentRequestDetail = Type.Object({
  uuid: Uuid,
  reference: Type.String(),
  request_type: RequestTypeEnum,
  status: StatusEnum,
  amount: Type.Number(),
  amount_captured: Type.Number(),
  amount_refunded: Type.Number(),
  currency: Type.String(),
  guest_email: Type.String(),
  guest_first_name: Type.String(),
  guest_last_name: Type.String(),
  reservation_ref: Type.String(),
  reservation_data: FreeObject,
  masked_pan: Type.String({ description: 'Masked card number; empty until a card is registered' }),
  card_expiry_month: NullableInt,
  card_expiry_year: NullableInt,
  order_cycle: Type.Enum(['OPEN', 'CLOSED']),
  email_sent: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
  hold_expires_at: NullableTimestamp,
  link_expires_at: Timestamp,
});

export const PaymentRequestStatus = Type.Object({
  uuid: Uuid,
  reference: Type.String(),
  reservation_ref: Type.String(),
  request_type: RequestTypeEnum,
  status: StatusEnum,
  order_cycle: Type.Enum(['OPEN', 'CLOSED']),
  amount: Type.Number(),
  amount_captured: Type.Number(),
});

export const MessageBody = Type.Object({ message: Type.String() });

export const UuidParams = Type.Object({ uuid: Type.String({ description: 'Identifier (UUID) of the request' }) });

export const ListQuery = Type.Object({
  status: Type.Optional(StatusEnum),
  request_type: Type.Optional(RequestTypeEnum),
  reservation_ref: Type.Optional(Text({ maxLength: 100 })),
  created_after: Type.Optional(Type.String({ format: 'date-time', description: 'Inclusive' })),
  created_before: Type.Optional(Type.String({ format: 'date-time', description: 'Exclusive' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'Opaque; from the Link header' })),
});
export type ListQuery = Static<typeof ListQuery>;

export const StatusesQuery = Type.Object({
  refs: Type.Optional(
    Text({ description: 'Reservation references separated by commas (at most 500)', maxLength: 60_000 }),
  ),
});

// One object-or-null schema rather than a union: a bad amount then yields one detail naming
// `amount`, not also "body must be null" and "must match a schema in anyOf" from the other branch.
export const CaptureBody = Type.Unsafe<{ amount?: number } | null>({
  type: ['object', 'null'],
  properties: {
    amount: {
      type: 'number',
      exclusiveMinimum: 0,
      description: 'Partial capture, at most the held amount; omitted: all of it',
    },
  },
});
