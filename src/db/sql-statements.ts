/**
 * Splits a migration file into statements: at a `;` that ends a line, outside quotes. A
 * dollar-quoted body ($$ … $$, $fn$ … $fn$: a PL/pgSQL function) is one piece whatever it
 * holds, and so are '…' literals, "…" identifiers and -- comments; comment-only pieces are
 * dropped. Without this, a trigger function, whose body ends lines with `;`, would be cut apart.
 */
export function splitSqlStatements(sql: string): string[] {
  const statements: string[] = [];
  let start = 0;
  let i = 0;
  const push = (end: number) => {
    const s = sql
      .slice(start, end)
      .replace(/^\s*--.*$/gm, '')
      .trim();
    if (s) statements.push(s);
  };
  while (i < sql.length) {
    const c = sql[i];
    if (c === '-' && sql[i + 1] === '-') {
      const eol = sql.indexOf('\n', i);
      i = eol === -1 ? sql.length : eol;
    } else if (c === "'" || c === '"') {
      // A doubled quote inside is an escaped one: skipping to the next quote and going on from
      // there reads it as the end and the start of two quoted runs, which comes to the same.
      const close = sql.indexOf(c, i + 1);
      i = close === -1 ? sql.length : close + 1;
    } else if (c === '$') {
      const tag = /^\$[A-Za-z_]*\$/.exec(sql.slice(i))?.[0];
      if (tag) {
        const close = sql.indexOf(tag, i + tag.length);
        i = close === -1 ? sql.length : close + tag.length;
      } else {
        i++; // $1: a parameter, not a quote
      }
    } else if (c === ';' && restOfLineIsBlank(sql, i + 1)) {
      push(i);
      i++;
      start = i;
    } else {
      i++;
    }
  }
  push(sql.length);
  return statements;
}

function restOfLineIsBlank(sql: string, from: number): boolean {
  const eol = sql.indexOf('\n', from);
  return sql.slice(from, eol === -1 ? sql.length : eol).trim() === '';
}
