// Webhooks: endpoints a tenant registers, the signed deliveries of its events, and their worker.
export {
  type AddressClass,
  addressAllowed,
  checkHost,
  classifyAddress,
  ForbiddenAddressError,
  type GuardPolicy,
  guardedLookup,
  type Resolve,
} from './address-guard.ts';
export {
  type DeliveryOutcome,
  deliverDueWebhooks,
  deliveryBody,
  GIVE_UP_AFTER_MS,
  retryDelayMs,
  startWebhookWorker,
  type WebhookContext,
  type WebhookLog,
  type WebhookOptions,
  webhookJobKind,
} from './delivery-worker.ts';
export {
  createEndpoint,
  type EndpointRules,
  EVENT_TYPES,
  presentEndpoint,
  ROTATION_GRACE_MS,
  rotateEndpointSecret,
  WebhookInputError,
  type WebhookProblem,
  webhookSecrets,
} from './endpoints.ts';
export { type PostAnswer, postOnce } from './http-post.ts';
export { SIGNATURE_HEADER, signatureHeader, verifySignature } from './signature.ts';
