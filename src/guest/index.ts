/** The guest payment pages, `/payment/<uuid>/` and its result page. */
export { GUEST_RATE_LIMIT, guestRoutes } from './guest-routes.js';
export { STATIC_SECURITY_HEADERS } from './security-headers.js';
