/**
 * RFC 4180 CSV: a field with a comma, quote or line break is quoted, quotes doubled; lines end
 * with CRLF.
 *
 * A cell a spreadsheet could take for a formula gets a leading apostrophe, so it is shown
 * instead of run: one starting with = + - @ after any leading whitespace (spreadsheets skip
 * it), or with a tab, a carriage return or a line feed (which some skip too, the line feed
 * inside a quoted cell among them). Every column, not only the text a guest or a PMS typed: a
 * provider's transaction id is text from outside as well, and a column added later is guarded
 * without anyone remembering to. A plain number (`-12.50`) is a value, not a formula: it stays
 * a number.
 */
const NEEDS_QUOTES = /[",\r\n]/;
const FORMULA_START = /^(?:[\t\r\n]|\s*[=+\-@])/;
const PLAIN_NUMBER = /^-?\d+(?:\.\d+)?$/;

export function csvField(value: string | number | null): string {
  if (value === null) return '';
  let text = String(value);
  if (FORMULA_START.test(text) && !PLAIN_NUMBER.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvLine(fields: readonly string[]): string {
  return `${fields.join(',')}\r\n`;
}
