// "Your account" (/control/account): password, two-factor sign-in, sessions.
import type { FastifyInstance } from 'fastify';
import { passwordRoutes } from './password.js';
import { sessionsRoutes } from './sessions.js';
import { twoFactorRoutes } from './two-factor.js';

export { deviceSummary } from './device.js';
export { issueText } from './issues.js';
export { type SessionView, sessionsTable, userSessions } from './sessions.js';
export { TWO_FACTOR_PATHS } from './two-factor.js';

export async function accountRoutes(control: FastifyInstance): Promise<void> {
  await passwordRoutes(control);
  await twoFactorRoutes(control);
  await sessionsRoutes(control);
}
export { ACCOUNT_MESSAGES } from './words.js';
