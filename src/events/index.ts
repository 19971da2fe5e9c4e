// The event feed: one event per status change, written by the status_history trigger
// (migration 0009) in the transaction of the change; read through the API and sent by webhooks.
export { presentEvent } from './present-event.js';
