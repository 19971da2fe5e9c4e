/**
 * The hotel's own system (docs/apaleo.md), Apaleo first: a tenant's connection to its property
 * (the custom app's client id and secret, sealed), every money movement posted on the
 * reservation's main guest folio through the one queue, exactly once, and requests made from
 * Apaleo's reservations (the back office's form, and the reservation webhooks by the hotel's rule).
 */
export { ApaleoError, type ApaleoFailure, apaleoClient } from './apaleo-client.ts';
export { type ApaleoReservation, paymentMethodOf, readReservation } from './apaleo-wire.ts';
export {
  APALEO_API_URL,
  APALEO_IDENTITY_URL,
  type ApaleoConnectInput,
  connectApaleo,
  disconnectPms,
  endpointOf,
  PmsConnectError,
  type PmsDeps,
  type PmsField,
  PmsInputError,
} from './connection.ts';
export { pmsJobKind } from './pms-kind.ts';
export {
  type ConnectionRow,
  type PmsRepository,
  type PostingRow,
  type PostingState,
  pmsRepository,
  type ReservationRuleKind,
} from './pms-repository.ts';
export { receiptOf } from './posting-job.ts';
export { readAsForm } from './prefill.ts';
export { describePms, presentPms, presentPosting } from './present.ts';
export { RuleError, secretMatches, setReservationRule } from './reservation-events.ts';
export { formFromReservation, type ReservationRule, requestByRule } from './reservation-rule.ts';
export { nextAttempt } from './retry-schedule.ts';
export { pmsWebhookRoutes } from './webhook-routes.ts';
