// "Your account" (/control/account): password, two-factor sign-in, sessions.
import type { FastifyInstance } from 'fastify';
import { passwordRoutes } from './password.ts';
import { sessionsRoutes } from './sessions.ts';
import { twoFactorRoutes } from './two-factor.ts';

export { deviceSummary } from './device.ts';
export { issueText } from './issues.ts';
export { type SessionView, sessionsTable, userSessions } from './sessions.ts';
export { TWO_FACTOR_PATHS } from './two-factor.ts';

export async function accountRoutes(control: FastifyInstance): Promise<void> {
  await passwordRoutes(control);
  await twoFactorRoutes(control);
  await sessionsRoutes(control);
}
export { ACCOUNT_MESSAGES } from './words.ts';
