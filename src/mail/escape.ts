/**
 * The one escaping helper for e-mail HTML. Every value interpolated by `html` is escaped unless
 * it is a `MailHtml` made by the same tag, so a guest's name, a hotel's name or reservation data
 * can never open a tag or an attribute: forgetting to escape is not possible.
 */
export class MailHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export type MailHtmlValue = MailHtml | string | number | null | undefined | false | readonly MailHtmlValue[];

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** Safe inside text and inside quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ENTITIES[c] ?? c);
}

function render(value: MailHtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof MailHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: MailHtmlValue[]): MailHtml {
  let out = strings[0] ?? '';
  values.forEach((v, i) => {
    out += render(v) + (strings[i + 1] ?? '');
  });
  return new MailHtml(out);
}

/**
 * Plain text carries no markup, but a header (the subject) must stay one line: a guest-supplied
 * line break would otherwise let a value add headers or break the layout.
 */
export function oneLine(text: string): string {
  return text.replace(/[\r\n\t\u2028\u2029]+/g, ' ').trim();
}
