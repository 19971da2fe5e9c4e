export { incidentActions, requestIncidents } from './pages.ts';
export { booksRoutes } from './routes.ts';
