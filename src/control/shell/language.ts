/** The languages the back office speaks; each room's words (its words.ts) have all of them. */
export const CONTROL_LANGUAGES = ['en', 'fr', 'de'] as const;
export type ControlLanguage = (typeof CONTROL_LANGUAGES)[number];

export function isControlLanguage(v: unknown): v is ControlLanguage {
  return typeof v === 'string' && (CONTROL_LANGUAGES as readonly string[]).includes(v);
}

/** The first of the browser's languages that the back office speaks; English otherwise. */
export function languageFromHeader(acceptLanguage: string | undefined): ControlLanguage {
  for (const part of (acceptLanguage ?? '').split(',')) {
    const tag = part.split(';')[0]?.trim().slice(0, 2).toLowerCase();
    if (isControlLanguage(tag)) return tag;
  }
  return 'en';
}
