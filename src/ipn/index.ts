export { type NotificationOutcome, type Notifications, notifications } from './apply-notification.ts';
export { ipnRoutes } from './ipn-routes.ts';
export { IPN_RATE_LIMIT } from './refused-notification-limit.ts';
