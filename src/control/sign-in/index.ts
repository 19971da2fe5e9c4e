export { currentTenant, mustEnrol } from './begin-session.ts';
export { signInCodeRoutes } from './code-routes.ts';
export { signInRoutes } from './routes.ts';
