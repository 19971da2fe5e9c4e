import { errors, isTimestampInRange, isUuid } from '../domain/index.ts';

/** Opaque keyset cursor: the (created_at, id) of the last row of the page. */
export function encodeCursor(createdAt: Date, id: string): string {
  return Buffer.from(`${createdAt.toISOString()}|${id}`).toString('base64url');
}

export function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const [ts, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(ts ?? '');
  if (!id || !isUuid(id) || !isTimestampInRange(createdAt)) throw errors.badCursor();
  return { createdAt, id };
}
