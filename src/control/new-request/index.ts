export { newRequestRoutes } from './routes.ts';
