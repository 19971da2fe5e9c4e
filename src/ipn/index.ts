export { type NotificationOutcome, type Notifications, notifications } from './apply-notification.js';
export { ipnRoutes } from './ipn-routes.js';
export { IPN_RATE_LIMIT } from './refused-notification-limit.js';
