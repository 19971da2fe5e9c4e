export { newRequestRoutes } from './routes.js';
