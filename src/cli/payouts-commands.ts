import { plural } from '../i18n/index.ts';
import {
  type ByteSource,
  defaultFetchSince,
  FETCH_DAYS_BACK,
  fetchStripePayouts,
  importJrb,
  JrbRefused,
  NotOnStripe,
  presentRemittance,
  remittancesRepository,
  tenantProvider,
} from '../payouts/index.ts';
import { ProviderError } from '../providers/index.ts';
import { CliError } from './cli-error.ts';
import type { CommandSpec } from './command-context.ts';
import * as check from './input-checks.ts';
import { serviceContext } from './jobs.ts';

export const payoutsImport: CommandSpec = {
  name: 'payouts import',
  summary: "import the provider's bank reconciliation report (Lyra's JRB) of a hotel and match its lines",
  usage: 'payreq payouts import --tenant ID FILE [--json]',
  help: [
    '  --tenant ID   the hotel whose report it is',
    "  FILE          the report as the provider's back office e-mails it (Lyra's JRB, TABLE_V1 to",
    '                TABLE_V3; UTF-8 or Latin-1; CRLF or LF; amounts in the currency’s smallest unit)',
    '',
    'Stores each remittance the file names and each of its lines, matched to the money payreq',
    'moved by its order and transaction number, or saying why not (docs/payouts.md). Prints',
    '{"remittances": n, "lines": n, "matched": n, "unmatched": n} for the file. Importing the same',
    "file, or one overlapping it, again adds nothing. A file that is not the report's layout is",
    'refused as a whole, naming its line and what is wrong there, and nothing is stored.',
    'The file is read as it goes: a report of any size holds little memory. One over 512 kB',
    'cannot be sent to a running service that holds a PGlite directory (stop it, or upload the',
    "file on the back office's Payouts page).",
  ].join('\n'),
  options: { tenant: { type: 'string' } },
  positionals: ['FILE'],
  streamed: 'FILE',
  needs: 'schema',
  async run(ctx, { options, file, stream }) {
    const tenantId = check.tenantId(options.tenant as string | undefined);
    if (!(await ctx.repos.tenants.find(tenantId))) {
      throw new CliError(`no tenant with id ${tenantId} (see \`payreq tenant list\`)`);
    }
    // The invoking process read the file; without it (a caller that bypassed it), nothing to import.
    const source: ByteSource | undefined = stream ? stream() : file ? [file] : undefined;
    if (!source) throw new CliError('FILE was not read');
    const provider = await tenantProvider(ctx.repos, ctx.config.paymentProvider, tenantId);
    try {
      const r = await importJrb({ db: ctx.db }, { tenantId, provider }, source);
      return {
        json: { ...r },
        text:
          r.changed === 0
            ? `nothing new: ${plural('en', r.lines, { zero: 'the file holds no line', one: 'its line was imported before', other: 'its # lines were imported before' })}`
            : `${plural('en', r.remittances, { one: '# remittance', other: '# remittances' })}, ${plural('en', r.lines, { one: '# line', other: '# lines' })}: ${r.matched} matched, ${r.unmatched} unmatched`,
      };
    } catch (err) {
      if (err instanceof JrbRefused) throw new CliError(`the file is refused, nothing was stored: ${err.message}`);
      throw err;
    }
  },
};

export const payoutsFetch: CommandSpec = {
  name: 'payouts fetch',
  summary: "fetch a Stripe hotel's paid payouts from Stripe's API and match their lines",
  usage: 'payreq payouts fetch --tenant ID [--since YYYY-MM-DD] [--json]',
  help: [
    '  --tenant ID      the hotel (its account must be a Stripe account)',
    '  --since DATE     payouts expected in the bank on DATE or after, YYYY-MM-DD (UTC)',
    `                   (default: ${FETCH_DAYS_BACK} days before today)`,
    '',
    "Reads the account's paid payouts and each one's balance transactions, and stores each payout",
    'not stored yet as a remittance (its number the payout id) with a line for each transaction it',
    'paid out, matched to the money payreq moved by its PaymentIntent or refund (docs/payouts.md).',
    'Prints {"remittances": n, "lines": n, "matched": n, "unmatched": n} for what it stored this',
    'time: a payout stored already is not read again, so fetching twice stores nothing new. The',
    'daily `fetch_payouts` job does the same for every Stripe hotel.',
  ].join('\n'),
  options: { tenant: { type: 'string' }, since: { type: 'string' } },
  needs: 'schema',
  async run(ctx, { options }) {
    const tenantId = check.tenantId(options.tenant as string | undefined);
    const rawSince = options.since as string | undefined;
    const today = new Date().toISOString().slice(0, 10);
    const since = rawSince === undefined ? defaultFetchSince(new Date()) : check.calendarDate('since', rawSince);
    if (since > today) throw new CliError(`--since must not be in the future (got ${since})`);
    if (!(await ctx.repos.tenants.find(tenantId))) {
      throw new CliError(`no tenant with id ${tenantId} (see \`payreq tenant list\`)`);
    }
    // Inside the service, its own context; from the CLI alone, one built on the CLI's database.
    const app = ctx.app ?? (await serviceContext(ctx));
    try {
      const r = await fetchStripePayouts({ db: ctx.db, providers: app.providers }, tenantId, since);
      return {
        json: { ...r },
        text: `${plural('en', r.remittances, { one: '# payout', other: '# payouts' })}, ${plural('en', r.lines, { one: '# line', other: '# lines' })}: ${r.matched} matched, ${r.unmatched} unmatched`,
      };
    } catch (err) {
      if (err instanceof NotOnStripe)
        throw new CliError(
          `${err.message}: only a Stripe hotel's payouts are fetched (a Lyra hotel's report is imported: \`payreq payouts import\`)`,
        );
      if (err instanceof ProviderError)
        throw new CliError(`Stripe could not be read, what was fetched before stays stored: ${err.message}`);
      throw err;
    }
  },
};

export const payoutsList: CommandSpec = {
  name: 'payouts list',
  summary: "a hotel's imported remittances: gross, fees, net, lines matched and unmatched",
  usage: 'payreq payouts list --tenant ID [--from DATE] [--to DATE] [--json]',
  help: [
    '  --tenant ID              the hotel',
    '  --from DATE, --to DATE   remittance dates, YYYY-MM-DD, both days included',
    '',
    'Newest first. With --json: {"remittances": [{"remittance_nb", "remittance_date", "currency",',
    '"gross", "fees", "net", "lines", "matched", "unmatched"}]}, amounts as decimal numbers in the',
    "currency's unit, as the API gives them (gross = debits - credits, net = gross - fees).",
  ].join('\n'),
  options: { tenant: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' } },
  needs: 'schema',
  async run(ctx, { options }) {
    const tenantId = check.tenantId(options.tenant as string | undefined);
    const from = options.from as string | undefined;
    const to = options.to as string | undefined;
    if (from !== undefined) check.calendarDate('from', from);
    if (to !== undefined) check.calendarDate('to', to);
    if (from !== undefined && to !== undefined && to < from) {
      throw new CliError(`--to must not be before --from (got ${from} to ${to})`);
    }
    if (!(await ctx.repos.tenants.find(tenantId))) {
      throw new CliError(`no tenant with id ${tenantId} (see \`payreq tenant list\`)`);
    }
    const rows = await remittancesRepository(ctx.db).list(tenantId, {
      ...(from !== undefined ? { from } : {}),
      ...(to !== undefined ? { to } : {}),
    });
    const remittances = rows.map(presentRemittance);
    const text =
      remittances.length === 0
        ? 'no remittance'
        : remittances
            .map(
              (r) =>
                `${r.remittance_date}  ${r.remittance_nb}  ${r.currency}  gross ${r.gross.toFixed(2)}  fees ${r.fees.toFixed(2)}  net ${r.net.toFixed(2)}  ${r.matched}/${r.lines} matched`,
            )
            .join('\n');
    return { json: { remittances }, text };
  },
};

/**
 * `payreq settlements import|fetch|list`: the first spelling of the payouts commands, kept as an alias
 * for the scripts that use it (the same options, the same output).
 */
function alias(of: CommandSpec, name: string): CommandSpec {
  return {
    ...of,
    name,
    summary: `the same as \`payreq ${of.name}\` (its first spelling, kept as an alias)`,
    usage: of.usage.replace(`payreq ${of.name}`, `payreq ${name}`),
  };
}

export const settlementsImport = alias(payoutsImport, 'settlements import');
export const settlementsList = alias(payoutsList, 'settlements list');
export const settlementsFetch = alias(payoutsFetch, 'settlements fetch');
