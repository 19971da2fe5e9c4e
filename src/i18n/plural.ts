/**
 * Counted words, by the language's own plural rules (CLDR, through `Intl.PluralRules`): French
 * says "0 demande" and "1 demande" where English says "0 requests" and "1 request"; German
 * follows English. The one mechanism every catalogue uses (back office, e-mails, the command
 * line's sentences), instead of "(s)", "(en)" or a `n === 1` test that is wrong for French 0.
 *
 * A form's `#` is replaced by the number, written as the language writes numbers (`1 234` in
 * French, `1.234` in German): `plural('fr', n, { one: '# ligne rapprochée', other: '# lignes rapprochées' })`.
 */
export interface PluralForms {
  /** Exactly 0, when the language's form for 0 does not say it well ("no line"), as ICU's `=0`. */
  zero?: string;
  /** The singular: English and German 1; French 0 and 1. */
  one: string;
  /** Everything else. */
  other: string;
  /** French for round millions ("1 million de lignes"); `other` when absent. */
  many?: string;
}

const rules = new Map<string, Intl.PluralRules>();
const numbers = new Map<string, Intl.NumberFormat>();

function made<T>(cache: Map<string, T>, language: string, make: () => T): T {
  let made = cache.get(language);
  if (!made) {
    made = make();
    cache.set(language, made);
  }
  return made;
}

/** The form of `forms` the language uses for `count`, with its `#` replaced by the count. */
export function plural(language: string, count: number, forms: PluralForms): string {
  const category = made(rules, language, () => new Intl.PluralRules(language)).select(count);
  const form =
    count === 0 && forms.zero !== undefined
      ? forms.zero
      : category === 'one'
        ? forms.one
        : category === 'many'
          ? (forms.many ?? forms.other)
          : forms.other;
  return form.replaceAll('#', made(numbers, language, () => new Intl.NumberFormat(language)).format(count));
}
