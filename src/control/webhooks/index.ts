// Webhooks in the back office (/control/webhooks): endpoints, secret rotation, delivery log, resend.
export { confirmPage, deliveryLogPage, eventName, type FreshSecret, webhooksPage } from './pages.ts';
export { webhookRoutes } from './routes.ts';
export { WEBHOOK_MESSAGES } from './words.ts';
