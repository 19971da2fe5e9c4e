import type { FastifyRequest } from 'fastify';
import { adminUsers, scryptParams, signInThrottle } from '../../admin-users/index.ts';
import { user } from '../shell/index.ts';

export type PasswordCheck = { ok: true } | { ok: false; retryAfterSeconds?: number };

/**
 * The signed-in user's password, asked again before a change to how they sign in (a new
 * password, turning the second factor off, new recovery codes). Throttled like the sign-in, on
 * a count of its own: a stolen session cannot guess the password faster than the sign-in form
 * allows, nor lock the user out of signing in by trying.
 */
export async function checkOwnPassword(request: FastifyRequest, password: string): Promise<PasswordCheck> {
  const { repos, config } = request.server.payreq;
  const me = user(request);
  const now = request.server.controlNow();
  const throttle = signInThrottle(repos.signInThrottle, 'reauth');
  const gate = await throttle.begin(me.username, request.ip, now);
  if (!gate.allowed) {
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((gate.retryAt.getTime() - now.getTime()) / 1000)) };
  }
  const found = await adminUsers(repos, scryptParams(config.passwordHashCost)).authenticate(me.username, password, {
    onMalformedHash: (who) => request.log.error({ username: who }, 'stored password hash is malformed: check refused'),
  });
  if (!found || found.id !== me.id) return { ok: false };
  await throttle.succeeded(me.username, request.ip, now);
  return { ok: true };
}
