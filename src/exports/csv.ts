/**
 * RFC 4180 CSV: a field with a comma, quote or line break is quoted, quotes doubled; lines end
 * with CRLF. A text a guest or a PMS typed that starts like a formula (= + - @, a tab or a
 * carriage return) gets a leading apostrophe, so a spreadsheet shows it instead of running it.
 */
const NEEDS_QUOTES = /[",\r\n]/;
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvField(value: string | number | null, isText: boolean): string {
  if (value === null) return '';
  let text = String(value);
  if (isText && FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvLine(fields: readonly string[]): string {
  return `${fields.join(',')}\r\n`;
}
