export { allowedActions, fullAmount, parseAmountField } from './actions.ts';
export { EXPORT_MESSAGES } from './export-words.ts';
export { newLinkRoute } from './new-link-route.ts';
export { type DetailRow, reasonFields } from './pages.ts';
export { REASON_MESSAGES } from './reason-words.ts';
export { PAGE_SIZE, requestsRoutes, scopedRequest } from './routes.ts';
