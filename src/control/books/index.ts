export { incidentActions, requestIncidents } from './pages.js';
export { booksRoutes } from './routes.js';
