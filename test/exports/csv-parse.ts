/**
 * RFC 4180 read back, as a spreadsheet reads it: quoted fields may hold the separator, doubled
 * quotes and line breaks; records end with CRLF. Written for the tests from the RFC, not from the
 * code that writes the files. `separator`: `;` reads the files of the excel-fr and excel-de
 * dialects, as a French or German spreadsheet does.
 */
export function parseCsv(text: string, separator: ',' | ';' = ','): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === separator) {
      record.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i++;
    } else field += c;
  }
  if (field !== '' || record.length > 0) throw new Error('the last record does not end with CRLF');
  return records;
}

/** Records as objects keyed by the header row. */
export function csvObjects(text: string, separator: ',' | ';' = ','): Record<string, string>[] {
  const [header, ...rows] = parseCsv(text, separator);
  if (!header) throw new Error('no header row');
  return rows.map((r) => {
    if (r.length !== header.length) throw new Error(`a row of ${r.length} fields under ${header.length} headers`);
    return Object.fromEntries(header.map((h, i) => [h, r[i] as string]));
  });
}
