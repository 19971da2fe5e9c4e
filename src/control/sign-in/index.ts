export { currentTenant, mustEnrol } from './begin-session.js';
export { signInCodeRoutes } from './code-routes.js';
export { signInRoutes } from './routes.js';
