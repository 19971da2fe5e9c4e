// Webhooks: endpoints a tenant registers, the signed deliveries of its events, and their worker.
export {
  deliverDueWebhooks,
  deliveryBody,
  GIVE_UP_AFTER_MS,
  retryDelayMs,
  startWebhookWorker,
  type WebhookContext,
  type WebhookLog,
  type WebhookOptions,
} from './delivery-worker.js';
export { createEndpoint, EVENT_TYPES, presentEndpoint, WebhookInputError, webhookSecrets } from './endpoints.js';
export { SIGNATURE_HEADER, signatureHeader, verifySignature } from './signature.js';
