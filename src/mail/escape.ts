/**
 * Plain text carries no markup, but a header (the subject) must stay one line: a guest-supplied
 * line break would otherwise let a value add headers or break the layout.
 */
export function oneLine(text: string): string {
  return text.replace(/[\r\n\t\u2028\u2029]+/g, ' ').trim();
}
