import type { ControlListFilter, ExportCursor, Repositories } from '../db/index.ts';
import type { PayoutExportRow, RemittancesRepository } from '../payouts/index.ts';
import { type ExportColumn, LEDGER_COLUMNS, PAYOUT_COLUMNS, REQUEST_COLUMNS } from './columns.ts';
import { BYTE_ORDER_MARK, type CsvDialect, csvDecimal, csvField, csvLine } from './csv.ts';

export const EXPORT_KINDS = ['requests', 'ledger'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];
export const EXPORT_FORMATS = ['csv', 'json'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** Rows read per round trip: large enough to amortise it, small enough to stay a few MB. */
const PAGE_ROWS = 1000;

type Page<Row, Cursor = ExportCursor> = (after: Cursor | undefined) => Promise<Row[]>;

type PayoutCursor = { date: string; remittance: string; line: string };

/** A file's shape: CSV in a dialect (csv.ts), or JSON. */
export type ExportShape = { format: 'csv'; dialect: CsvDialect } | { format: 'json' };

/**
 * An export as text chunks, one per page of rows: a consumer that writes each before asking
 * for the next (an HTTP reply, standard output) holds one page at a time, whatever the total.
 * The filter must name one tenant: every row is read in that tenant's time zone, and a page is
 * one range of its index. A CSV file starts with its byte-order mark, wherever it goes.
 */
export async function* exportChunks(
  repos: Repositories,
  filter: ControlListFilter & { tenantId: string },
  what: ExportKind,
  shape: ExportShape,
): AsyncGenerator<string> {
  const match = await repos.controlRequests.searchMatch(filter);
  if (what === 'requests') {
    yield* render(
      REQUEST_COLUMNS,
      (after) => repos.exports.requests(filter, match, after, PAGE_ROWS),
      shape,
      (r) => ({
        at: r.cursor_at,
        id: r.id,
      }),
    );
  } else {
    yield* render(
      LEDGER_COLUMNS,
      (after) => repos.exports.ledger(filter, match, after, PAGE_ROWS),
      shape,
      (r) => ({
        at: r.cursor_at,
        id: r.id,
      }),
    );
  }
}

/**
 * A hotel's remittance lines, remittance by remittance, for remittances dated `from` to `to`
 * (YYYY-MM-DD, both included): `payreq export --what settlements` and the Payouts page's
 * download. A page of lines at a time, as the other exports.
 */
export async function* payoutChunks(
  repos: { remittances: RemittancesRepository },
  range: { tenantId: string; from: string; to: string },
  shape: ExportShape,
): AsyncGenerator<string> {
  yield* render<PayoutExportRow, PayoutCursor>(
    PAYOUT_COLUMNS,
    (after) => repos.remittances.exportLines(range.tenantId, range.from, range.to, after, PAGE_ROWS),
    shape,
    (r) => ({ date: r.remittance_date, remittance: r.remittance_id, line: r.id }),
  );
}

/** A row's cells in a CSV dialect: amounts with the dialect's decimal separator. */
function csvRow<Row>(columns: readonly ExportColumn<Row>[], row: Row, dialect: CsvDialect): string {
  return csvLine(
    columns.map((c) => {
      const v = c.value(row);
      return csvField(c.money && v !== null ? csvDecimal(v, dialect) : v, dialect);
    }),
    dialect,
  );
}

async function* render<Row, Cursor = ExportCursor>(
  columns: readonly ExportColumn<Row>[],
  page: Page<Row, Cursor>,
  shape: ExportShape,
  cursorOf: (row: Row) => Cursor,
): AsyncGenerator<string> {
  yield shape.format === 'csv'
    ? `${BYTE_ORDER_MARK}${csvLine(
        columns.map((c) => csvField(c.header, shape.dialect)),
        shape.dialect,
      )}`
    : '[';
  let after: Cursor | undefined;
  let first = true;
  for (;;) {
    const rows = await page(after);
    if (rows.length === 0) break;
    let chunk = '';
    for (const row of rows) {
      if (shape.format === 'csv') chunk += csvRow(columns, row, shape.dialect);
      else {
        chunk += `${first ? '\n' : ',\n'}${JSON.stringify(jsonRow(columns, row))}`;
        first = false;
      }
    }
    yield chunk;
    const last = rows[rows.length - 1] as Row;
    after = cursorOf(last);
    if (rows.length < PAGE_ROWS) break;
  }
  if (shape.format === 'json') yield first ? ']\n' : '\n]\n';
}

function jsonRow<Row>(columns: readonly ExportColumn<Row>[], row: Row): Record<string, string | number | null> {
  const out: Record<string, string | number | null> = {};
  for (const c of columns) {
    const v = c.value(row);
    out[c.header] = c.money && v !== null ? Number(v) : v;
  }
  return out;
}
