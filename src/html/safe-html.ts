/**
 * HTML built by a tagged template that escapes every interpolated value, for the guest pages
 * and the e-mails alike. Markup can only enter as a `SafeHtml` made by this same tag, so a
 * guest's name, a hotel's name, reservation data or a provider's hidden field can never open a
 * tag or an attribute: forgetting to escape is not possible.
 */
export class SafeHtml {
  // A plain field, not a parameter property: Node runs the sources by stripping types only.
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

export type HtmlValue = SafeHtml | string | number | null | undefined | false | readonly HtmlValue[];

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

const SPECIAL = /[&<>"'`]/;
const SPECIALS = /[&<>"'`]/g;
const entity = (c: string) => ENTITIES[c] ?? c;

/** The one escaping helper: safe inside text and inside quoted attribute values. */
export function escapeHtml(text: string): string {
  // Most values (labels, names, amounts) hold nothing to escape: a test is far cheaper than a
  // replace with a callback, and a page interpolates dozens of them.
  return SPECIAL.test(text) ? text.replace(SPECIALS, entity) : text;
}

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? '');
  return new SafeHtml(out);
}
