export { bulkRoutes } from './routes.ts';
