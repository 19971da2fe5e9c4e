export { allowedActions, fullAmount, parseAmountField } from './actions.js';
export type { DetailRow } from './pages.js';
export { PAGE_SIZE, requestsRoutes, scopedRequest } from './routes.js';
