import { Type } from 'typebox';
import { REQUEST_TYPES, STATUSES } from '../domain/index.ts';

/**
 * The JSON shapes more than one room speaks: the API's schemas and the request detail that
 * the API answers and every event carries (events/request-detail.ts). One definition each, so
 * the OpenAPI document, the validation and the types cannot drift apart.
 */
export const Uuid = Type.String({ format: 'uuid', description: 'Identifier of the payment request' });
export const StatusEnum = Type.Enum([...STATUSES], {
  title: 'PaymentRequestStatusValue',
  description: 'Where the request stands; docs/lifecycle.md shows every move between statuses.',
});
export const RequestTypeEnum = Type.Enum([...REQUEST_TYPES], {
  title: 'RequestType',
  description: 'IMPRINT: a card registered without debit (a hold may follow). DEPOSIT: the guest pays at once.',
});
export const OrderCycle = Type.Enum(['OPEN', 'CLOSED'], {
  title: 'OrderCycle',
  description: 'CLOSED once the status is terminal (CAPTURED, REFUSED, CANCELLED, EXPIRED, REFUNDED), OPEN otherwise.',
});
export const Timestamp = Type.String({ format: 'date-time' });
export const NullableInt = Type.Unsafe<number | null>({ type: ['integer', 'null'] });
export const NullableTimestamp = Type.Unsafe<string | null>({ type: ['string', 'null'], format: 'date-time' });
export const FreeObject = Type.Object({}, { additionalProperties: true, description: 'Free JSON, stored as given' });
