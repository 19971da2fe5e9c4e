export { configRoutes } from './routes.ts';
export { SETTINGS_MESSAGES } from './words.ts';
