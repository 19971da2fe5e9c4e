export { ipnRoutes } from './ipn-routes.js';
export { IPN_RATE_LIMIT } from './refused-notification-limit.js';
