/**
 * Punctuation by the language's rules, for text where no stylesheet can help (an e-mail's text
 * part, a subject): French sets a no-break space before a colon ("Montant : 120,00 €"), English
 * and German none. Written here once, for every catalogue's "label: value".
 */
export function colon(language: string): string {
  return language === 'fr' ? '\u00a0:' : ':';
}

/** "label: value", with the language's colon. */
export function labelled(language: string, label: string, value: string): string {
  return `${label}${colon(language)} ${value}`;
}
