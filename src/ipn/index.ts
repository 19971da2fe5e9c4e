export { type NotificationOutcome, type Notifications, notifications } from './apply-notification.js';
export { IPN_RATE_LIMIT, ipnRoutes } from './ipn-routes.js';
