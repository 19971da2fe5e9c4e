export { IPN_RATE_LIMIT, ipnRoutes } from './ipn-routes.js';
