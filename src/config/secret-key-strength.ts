/**
 * SECRET_KEY seals card tokens and signs sessions, so in production it must be random, not
 * merely long: 32 × "a" is 32 characters and no secret at all. The estimate is the key's own
 * character statistics (Shannon entropy per character × length); it cannot prove randomness,
 * but it refuses repeated, low-variety and short keys. `openssl rand -base64 48` gives about
 * 350 estimated bits; a random 64-character hex key about 250.
 */
export const MIN_SECRET_KEY_BITS = 160;

export function estimatedBits(key: string): number {
  const counts = new Map<string, number>();
  for (const c of key) counts.set(c, (counts.get(c) ?? 0) + 1);
  const length = [...key].length;
  let perChar = 0;
  for (const n of counts.values()) {
    const p = n / length;
    perChar -= p * Math.log2(p);
  }
  return perChar * length;
}
