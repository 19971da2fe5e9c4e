export { payoutsRoutes } from './routes.ts';
export { PAYOUT_MESSAGES, type PayoutMessages } from './words.ts';
