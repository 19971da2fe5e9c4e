/**
 * CSV in three dialects, for the spreadsheet that opens it:
 *
 * - `rfc4180`: RFC 4180, a comma between fields and a decimal point (`150.50`): English
 *   spreadsheets, and programs;
 * - `excel-fr`, `excel-de`: what a French or German Excel opens by a double click, a semicolon
 *   between fields and a decimal comma in the amounts (`150,50`), the comma being those
 *   languages' decimal separator (the two write the same file: each is named for its hotels).
 *
 * All three: UTF-8 with a byte-order mark (a spreadsheet opened by a double click then reads the
 * UTF-8 as UTF-8), a field holding the separator, a quote or a line break quoted with its quotes
 * doubled, lines ending with CRLF.
 *
 * A cell a spreadsheet could take for a formula gets a leading apostrophe, so it is shown
 * instead of run: one starting with = + - @ after any leading whitespace (spreadsheets skip
 * it), or with a tab, a carriage return or a line feed (which some skip too, the line feed
 * inside a quoted cell among them); and in a cell of several lines, every line that starts so
 * (a paste or an import by lines reads each line as a cell). Every column, not only the text a guest or a PMS typed: a
 * provider's transaction id is text from outside as well, and a column added later is guarded
 * without anyone remembering to. A plain number (`-12.50`, `-12,50` in the comma dialects) is a
 * value, not a formula: it stays a number.
 */
export const CSV_DIALECTS = ['excel-fr', 'excel-de', 'rfc4180'] as const;
export type CsvDialect = (typeof CSV_DIALECTS)[number];

/** Put first in every CSV file. */
export const BYTE_ORDER_MARK = '\uFEFF';

interface DialectRules {
  separator: ',' | ';';
  decimal: '.' | ',';
  needsQuotes: RegExp;
  plainNumber: RegExp;
}

const RULES: Record<CsvDialect, DialectRules> = {
  rfc4180: { separator: ',', decimal: '.', needsQuotes: /[",\r\n]/, plainNumber: /^-?\d+(?:\.\d+)?$/ },
  'excel-fr': { separator: ';', decimal: ',', needsQuotes: /[";\r\n]/, plainNumber: /^-?\d+(?:,\d+)?$/ },
  'excel-de': { separator: ';', decimal: ',', needsQuotes: /[";\r\n]/, plainNumber: /^-?\d+(?:,\d+)?$/ },
};

const FORMULA_START = /^(?:[\t\r\n]|\s*[=+\-@])/;
/** A line inside a cell, after a line break, that starts like a formula. */
const LINE_FORMULA_START = /^(?:\t|\s*[=+\-@])/;
const INNER_LINES = /(\r\n|\r|\n)([^\r\n]*)/g;

/**
 * The cell's text, each line that starts like a formula given its apostrophe: the first (the
 * cell's start, a line break there included), and every line after a line break, which a
 * spreadsheet splitting the quoted cell (a paste, an import by lines) reads as a cell of its own.
 */
function defused(text: string, rules: DialectRules): string {
  if (rules.plainNumber.test(text)) return text;
  const lines = text.replace(INNER_LINES, (all, lineBreak: string, line: string) =>
    LINE_FORMULA_START.test(line) && !rules.plainNumber.test(line) ? `${lineBreak}'${line}` : all,
  );
  return FORMULA_START.test(text) ? `'${lines}` : lines;
}

/**
 * The dialect a hotel's spreadsheet wants by default, from the hotel's language: French and
 * German ones read `;` and decimal commas, an English one RFC 4180.
 */
export function dialectForLanguage(language: string): CsvDialect {
  if (language === 'fr') return 'excel-fr';
  if (language === 'de') return 'excel-de';
  return 'rfc4180';
}

/** A decimal amount as written by the export (`-150.50`), in the dialect's decimal separator. */
export function csvDecimal(value: string, dialect: CsvDialect): string {
  return RULES[dialect].decimal === '.' ? value : value.replace('.', ',');
}

export function csvField(value: string | number | null, dialect: CsvDialect = 'rfc4180'): string {
  if (value === null) return '';
  const rules = RULES[dialect];
  const text = defused(String(value), rules);
  return rules.needsQuotes.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvLine(fields: readonly string[], dialect: CsvDialect = 'rfc4180'): string {
  return `${fields.join(RULES[dialect].separator)}\r\n`;
}
