/**
 * The keys the service holds: the current one (SECRET_KEY, named by SECRET_KEY_ID), which seals
 * and signs, and retired ones (SECRET_KEYS_OLD), which only open what they sealed. A sealed value
 * names the key that sealed it, so a key can be replaced while values sealed with it remain:
 * `payreq secrets reseal` moves them to the current key, then the old key can go.
 */
export interface NamedKey {
  id: string;
  key: string;
}

export interface SecretKeyRing {
  current: NamedKey;
  old: readonly NamedKey[];
}

/**
 * The id of the key behind values sealed before keys had ids (`v1:…`), and SECRET_KEY_ID's
 * default: an install that never set an id keeps opening its values with no action. On the
 * first rotation the retired key is listed as `v1:<old key>` in SECRET_KEYS_OLD.
 */
export const LEGACY_KEY_ID = 'v1';

/** Short, and free of the separators of the sealed format (`:`) and of SECRET_KEYS_OLD (`,`). */
export const KEY_ID_PATTERN = /^[A-Za-z0-9_.-]{1,32}$/;

export class KeyRingError extends Error {}

/** A ring of one key: what a caller that knows only SECRET_KEY (and no ids) seals with. */
export function singleKey(key: string, id = LEGACY_KEY_ID): SecretKeyRing {
  return { current: { id, key }, old: [] };
}

export function checkKeyId(id: string, where: string): string {
  if (!KEY_ID_PATTERN.test(id)) {
    throw new KeyRingError(`${where}: a key id is 1 to 32 letters, digits, ".", "_" or "-" (got "${id}")`);
  }
  return id;
}

/**
 * SECRET_KEYS_OLD: `id:key,id:key`. Keys never contain a comma (`openssl rand -base64 48` and
 * hex keys never do); a key may contain ":" (only the first one separates the id). Each entry's
 * position is named in errors, never its key.
 */
export function parseOldKeys(raw: string | undefined): NamedKey[] {
  if (raw === undefined || raw.trim() === '') return [];
  return raw.split(',').map((entry, i) => {
    const at = entry.indexOf(':');
    const where = `SECRET_KEYS_OLD entry ${i + 1}`;
    if (at < 0) throw new KeyRingError(`${where} must be ID:KEY (e.g. v1:<the retired key>), entries separated by ","`);
    const id = checkKeyId(entry.slice(0, at).trim(), where);
    const key = entry.slice(at + 1).trim();
    if (key === '') throw new KeyRingError(`${where} (id "${id}") has no key after the ":"`);
    return { id, key };
  });
}

/** The ring as configured; ids must be distinct, and the current one cannot also be retired. */
export function keyRing(current: NamedKey, old: readonly NamedKey[] = []): SecretKeyRing {
  checkKeyId(current.id, 'SECRET_KEY_ID');
  const seen = new Set([current.id]);
  for (const k of old) {
    if (seen.has(k.id)) {
      throw new KeyRingError(
        k.id === current.id
          ? `SECRET_KEYS_OLD lists id "${k.id}", which is SECRET_KEY_ID: the current key's id must be new`
          : `SECRET_KEYS_OLD lists id "${k.id}" twice`,
      );
    }
    seen.add(k.id);
  }
  return { current, old };
}

/** The key named `id`, current or retired. */
export function keyById(ring: SecretKeyRing, id: string): NamedKey | undefined {
  return ring.current.id === id ? ring.current : ring.old.find((k) => k.id === id);
}
