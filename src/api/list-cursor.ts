import { errors, isTimestampInRange } from '../domain/index.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Opaque keyset cursor: the (created_at, id) of the last row of the page. */
export function encodeCursor(createdAt: Date, id: string): string {
  return Buffer.from(`${createdAt.toISOString()}|${id}`).toString('base64url');
}

export function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const [ts, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(ts ?? '');
  if (!id || !UUID.test(id) || !isTimestampInRange(createdAt)) throw errors.badCursor();
  return { createdAt, id };
}

export function isUuid(value: string): boolean {
  return UUID.test(value);
}
