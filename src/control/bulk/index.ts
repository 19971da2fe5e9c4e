export { bulkRoutes } from './routes.js';
