import type { FastifyRequest } from 'fastify';
import { AppError } from '../../domain/index.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route reads hostile text itself (sign-in audits it; the language switch falls back). */
    checksOwnText?: boolean;
  }
}

/**
 * What no back-office form field or address parameter may hold: control characters other than
 * tab and line breaks, and UTF-16 surrogates without their pair. PostgreSQL cannot store NUL
 * (a search, a key label or an audit entry holding one answered 500), and no field here needs
 * any of the others. Checked once for every route, so no handler has to remember.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: they are what this pattern finds
const UNACCEPTED = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]|\p{Cs}/u;

export const unacceptedText = () =>
  new AppError('invalid_text', 400, 'A value holds control characters (such as NUL), which are not accepted');

function holdsUnaccepted(value: unknown): boolean {
  if (typeof value === 'string') return UNACCEPTED.test(value);
  if (Array.isArray(value)) return value.some(holdsUnaccepted);
  return false;
}

/**
 * One value per query parameter, the first, as `field()` reads forms: the pages read their
 * parameters as strings, and `?username=&username=0` (an array) failed as a 500.
 */
export async function firstQueryValues(request: FastifyRequest): Promise<void> {
  const query = request.query as Record<string, unknown> | undefined;
  if (!query || !Object.values(query).some(Array.isArray)) return;
  request.query = Object.fromEntries(Object.entries(query).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
}

/** Every query, path and form value (an uploaded file's bytes aside) in the allowed set, or a 400. */
export async function refuseUnacceptedText(request: FastifyRequest): Promise<void> {
  for (const part of [request.query, request.params, request.body]) {
    if (typeof part !== 'object' || part === null) continue;
    if (Object.values(part).some(holdsUnaccepted)) throw unacceptedText();
  }
}

/**
 * Text fit for the audit log whatever it holds: each control character and unpaired surrogate
 * written as its `\uXXXX` escape. A sign-in attempt with NUL in its username is recorded, and
 * shows as typed, instead of failing the insert.
 */
export function printable(text: string): string {
  return text.replace(
    new RegExp(UNACCEPTED.source, 'gu'),
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
