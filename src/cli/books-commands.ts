import { BooksCheckBusy, checkBooks, defaultSince, describeProblem, presentProblem } from '../books/index.js';
import { CliError } from './cli-error.js';
import type { CommandSpec } from './command-context.js';
import * as check from './input-checks.js';
import { serviceContext } from './jobs.js';

export const booksCheck: CommandSpec = {
  name: 'books check',
  summary: "check payreq's books against the provider's view of every order that moved lately",
  usage: 'payreq books check [--tenant ID] [--since DATE] [--json]',
  help: [
    '  --tenant ID     one tenant (default: every tenant)',
    '  --since DATE    orders whose ledger moved since DATE, YYYY-MM-DD, midnight UTC',
    '                  (default: 7 days before today)',
    '',
    "Asks the provider's view of each order and compares it with payreq's books: the provider's",
    'net must equal amount_captured - amount_refunded, and no hold may be open at the provider',
    'unless the request is AUTHORISED_TO_VALIDATE (or EXPIRED: the provider lapses it).',
    'Prints one line per order that does not agree (reference, provider net, payreq net, open',
    'holds, operations in doubt), then {"orders": N, "agree": N, "disagree": N, "in_doubt": N}.',
    'With --json, each of these lines is a JSON object. Exit status 0 only when every order agrees.',
    'A check that stops before its end is carried on by the next one over the same window: the',
    'orders it checked are not asked again.',
  ].join('\n'),
  options: { tenant: { type: 'string' }, since: { type: 'string' } },
  needs: 'schema',
  async run(ctx, { options }) {
    const rawTenant = options.tenant as string | undefined;
    const tenantId = rawTenant === undefined ? undefined : check.tenantId(rawTenant);
    if (tenantId && !(await ctx.repos.tenants.find(tenantId))) {
      throw new CliError(`no tenant with id ${tenantId} (see \`payreq tenant list\`)`);
    }
    const rawSince = options.since as string | undefined;
    const now = new Date();
    let since = defaultSince(now);
    if (rawSince !== undefined) {
      since = new Date(`${check.calendarDate('since', rawSince)}T00:00:00Z`);
      if (since.getTime() > now.getTime()) throw new CliError(`--since must not be in the future (got ${rawSince})`);
    }
    // Inside the service, its own context; from the CLI alone, one built on the CLI's database.
    const app = ctx.app ?? (await serviceContext(ctx));
    let r: Awaited<ReturnType<typeof checkBooks>>;
    try {
      r = await checkBooks({ repos: ctx.repos, providers: app.providers }, { tenantId, since });
    } catch (err) {
      if (err instanceof BooksCheckBusy) throw new CliError(`${err.message}; try again then`);
      throw err;
    }
    const summary = { ...r.summary };
    const lines = r.problems.map(describeProblem);
    return {
      json: summary,
      jsonLines: r.problems.map(presentProblem),
      text: `${lines.map((l) => `${l}\n`).join('')}${JSON.stringify(summary)}`,
      exitCode: r.summary.disagree === 0 && r.summary.in_doubt === 0 && r.complete ? 0 : 1,
    };
  },
};
