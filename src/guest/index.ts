/** The guest payment pages, `/payment/<uuid>/` and its result page. */
export { GUEST_RATE_LIMIT, guestRoutes } from './guest-routes.ts';
export { STATIC_SECURITY_HEADERS } from './security-headers.ts';
