import { dayEnd, dayStart } from '../domain/index.ts';
import {
  CSV_DIALECTS,
  type CsvDialect,
  dialectForLanguage,
  EXPORT_FORMATS,
  EXPORT_KINDS,
  type ExportFormat,
  type ExportKind,
  exportChunks,
  payoutChunks,
} from '../exports/index.ts';
import { remittancesRepository } from '../payouts/index.ts';
import { CliError } from './cli-error.ts';
import type { CommandSpec } from './command-context.ts';
import * as check from './input-checks.ts';

function oneOf<T extends string>(option: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new CliError(`--${option} must be one of ${allowed.join(', ')} (got "${value}")`);
  }
  return value as T;
}

export const exportCommand: CommandSpec = {
  name: 'export',
  summary: "a hotel's requests or ledger movements over a period, as CSV or JSON, to standard output",
  usage:
    'payreq export --tenant ID --from DATE --to DATE [--what requests|ledger|payouts] [--format csv|json] [--csv-dialect excel-fr|excel-de|rfc4180]',
  help: [
    '  --tenant ID              the hotel',
    '  --from DATE, --to DATE   YYYY-MM-DD, both days included, in the hotel’s time zone',
    '  --what requests|ledger|payouts',
    '                           requests created in the period (default), the ledger',
    '                           movements (holds, captures, payments, refunds...) made in it,',
    '                           or the lines of the payouts (remittances) dated in it, each with',
    '                           what it matched (docs/payouts.md); `settlements` is the same as',
    '                           `payouts` (its first spelling)',
    '  --format csv|json        CSV with a header row (default), or a JSON array of objects',
    '  --csv-dialect D          excel-fr or excel-de: `;` between fields and a decimal comma,',
    '                           as a French or German spreadsheet opens them; rfc4180: `,` and',
    '                           a decimal point. Default: by the hotel’s language (its',
    '                           digest_language: fr, de, or rfc4180 for en)',
    '',
    'CSV is UTF-8 with a byte-order mark. Amounts are decimals with their currency in a column of',
    'their own; in the ledger they are signed (refunds negative), holds are apart in `held`, and',
    '`net` is what each movement did move (docs/money.md). Times are ISO 8601 in the hotel’s time',
    'zone with its offset. Rows are read a thousand at a time and written as they come, oldest',
    'first: the memory used does not grow with the number of rows.',
    'Example: payreq export --tenant ID --from 2026-11-01 --to 2026-11-30 > november.csv',
  ].join('\n'),
  options: {
    tenant: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    what: { type: 'string' },
    format: { type: 'string' },
    'csv-dialect': { type: 'string' },
  },
  needs: 'schema',
  async run(ctx, { options }) {
    const tenantId = check.tenantId(options.tenant as string | undefined);
    const from = options.from as string | undefined;
    const to = options.to as string | undefined;
    if (from === undefined || to === undefined) throw new CliError('--from and --to are required (YYYY-MM-DD)');
    check.calendarDate('from', from);
    check.calendarDate('to', to);
    if (to < from) throw new CliError(`--to must not be before --from (got ${from} to ${to})`);
    const what: ExportKind | 'payouts' | 'settlements' = oneOf(
      'what',
      options.what as string | undefined,
      [...EXPORT_KINDS, 'payouts', 'settlements'] as const,
      'requests',
    );
    const format: ExportFormat = oneOf('format', options.format as string | undefined, EXPORT_FORMATS, 'csv');
    const dialectOption = options['csv-dialect'] as string | undefined;
    const chosen =
      dialectOption === undefined ? undefined : oneOf('csv-dialect', dialectOption, CSV_DIALECTS, 'rfc4180');
    if (chosen && format !== 'csv') throw new CliError('--csv-dialect is for --format csv only');
    const tenant = await ctx.repos.tenants.find(tenantId);
    if (!tenant) throw new CliError(`no tenant with id ${tenantId} (see \`payreq tenant list\`)`);
    // A French or German hotel's spreadsheet wants `;` and decimal commas unless told otherwise.
    const dialect: CsvDialect = chosen ?? dialectForLanguage(tenant.digest_language);
    const filter = {
      tenantId,
      createdFrom: dayStart(from, tenant.timezone),
      createdBefore: dayEnd(to, tenant.timezone),
      limit: 0,
    };
    // Written as it goes where the user's own process runs it; collected inside the service.
    const collected: string[] = [];
    const write = ctx.out ?? (async (chunk: string) => void collected.push(chunk));
    const shape = format === 'csv' ? { format, dialect } : { format };
    const chunks =
      what === 'payouts' || what === 'settlements'
        ? payoutChunks({ remittances: remittancesRepository(ctx.db) }, { tenantId, from, to }, shape)
        : exportChunks(ctx.repos, filter, what, shape);
    for await (const chunk of chunks) await write(chunk);
    return { json: {}, text: '', raw: collected.join('') };
  },
};
