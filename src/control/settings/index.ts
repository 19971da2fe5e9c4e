export { configRoutes } from './routes.ts';
