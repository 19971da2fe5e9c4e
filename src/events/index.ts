// The event feed: one event per status change, written by the status_history trigger
// (migrations 0016 and 0028) in the transaction of the change; read through the API and sent
// by webhooks. Its `data` is the request's detail, defined once in request-detail.ts.
export { EVENT_TYPES, eventTypeFunctionSql } from './event-types.ts';
export { presentEvent } from './present-event.ts';
export {
  presentRequestDetail,
  REQUEST_DETAIL_PROPERTIES,
  type RequestDetail,
  requestDetailColumnsSql,
  requestDetailFunctionSql,
} from './request-detail.ts';
