// Webhooks in the back office (/control/webhooks): endpoints, secret rotation, delivery log, resend.
export { confirmPage, deliveryLogPage, eventName, type FreshSecret, webhooksPage } from './pages.js';
export { webhookRoutes } from './routes.js';
export { WEBHOOK_MESSAGES } from './words.js';
