import type { Language } from '../domain/index.ts';

/**
 * The language of requests whose page was served lately, for the 429 page. A rate-limited
 * answer must not cost a database query (that is what the limit protects), so it speaks the
 * request's language only if this instance remembers it, and French + English otherwise.
 * Bounded: the oldest entry goes first (a Map iterates in insertion order).
 */
export function languageMemory(capacity = 10_000) {
  const known = new Map<string, Language>();
  return {
    remember(id: string, language: Language): void {
      known.delete(id);
      known.set(id, language);
      if (known.size > capacity) {
        const oldest = known.keys().next().value;
        if (oldest !== undefined) known.delete(oldest);
      }
    },
    recall(id: string | undefined): Language | undefined {
      return id === undefined ? undefined : known.get(id.toLowerCase());
    },
  };
}
