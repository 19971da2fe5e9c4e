import {
  BooksCheckBusy,
  checkBooks,
  DecisionRefused,
  defaultSince,
  describeProblem,
  presentProblem,
} from '../money-audit/index.ts';
import { CliError } from './cli-error.ts';
import type { CommandSpec } from './command-context.ts';
import * as check from './input-checks.ts';
import { serviceContext } from './jobs.ts';

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

export const booksSettle: CommandSpec = {
  name: 'books settle',
  summary: 'settle by hand an operation reconcile cannot decide, after looking at the provider',
  usage:
    'payreq books settle --operation ID --as done|refused --reason TEXT [--transaction ID] [--force] [--username NAME] [--json]',
  help: [
    '  --operation ID     the operation (its ledger id, as the Books page and reconcile name it)',
    '  --as done|refused  what the provider shows: done (it happened) or refused (nothing moved)',
    "  --reason TEXT      why: what was seen in the provider's back office (kept in the audit)",
    "  --transaction ID   the provider's transaction, when a hold or refund settled as done",
    '                     has none on record',
    '  --force            settle it although it is younger than IN_DOUBT_ESCALATE_HOURS, or the',
    '                     provider shows otherwise (both printed; the audit says it was forced)',
    '  --username NAME    who decides (recorded in the audit; default: the command line)',
    '',
    'Only an undecided operation (in doubt, or asked by a process that died) can be settled. The',
    "provider's view of the order is read first and printed: a decision it contradicts, or one",
    'made before the escalation delay (reconcile may still settle it), is refused unless',
    "--force. A transaction named must be one of the order's at the provider and not one the",
    'ledger already accounts for. It goes through the same step as an answer from the provider:',
    'a hold settled refused is a failed guarantee (the hotel is told, the guest asked for another',
    'card); a refund or capture settled refused frees the request for another try. A provider',
    'answer arriving later that says otherwise opens an incident on the Books page.',
  ].join('\n'),
  options: {
    operation: { type: 'string' },
    as: { type: 'string' },
    reason: { type: 'string' },
    transaction: { type: 'string' },
    force: { type: 'boolean' },
    username: { type: 'string' },
  },
  needs: 'schema',
  async run(ctx, { options }) {
    const operation = options.operation as string | undefined;
    if (!operation || !/^[1-9][0-9]{0,17}$/.test(operation)) {
      throw new CliError('--operation is required: the operation id (digits), as the Books page names it');
    }
    const as = options.as as string | undefined;
    if (as !== 'done' && as !== 'refused') throw new CliError('--as must be done or refused');
    const reason = printable('reason', check.text('reason', options.reason as string | undefined, 500));
    const rawTransaction = options.transaction as string | undefined;
    const transaction =
      rawTransaction === undefined
        ? undefined
        : printable('transaction', check.text('transaction', rawTransaction, 200));
    const username =
      options.username === undefined
        ? null
        : printable('username', check.text('username', options.username as string, 100));
    const app = ctx.app ?? (await serviceContext(ctx));
    try {
      const { row, providerShows, forced } = await app.reconciler.decideByHand({
        ledgerId: operation,
        as,
        reason,
        ...(transaction ? { transactionId: transaction } : {}),
        ...(options.force === true ? { force: true } : {}),
        by: { username, ip: null },
      });
      const json = {
        operation: row.id,
        payment_request_id: row.payment_request_id,
        kind: row.kind,
        state: row.state,
        transaction_id:
          row.kind === 'hold' || row.kind === 'refund' ? row.provider_transaction_id : row.answer_transaction_id,
        provider_shows: providerShows,
        forced,
      };
      return {
        json,
        text:
          `operation ${row.id} (${row.kind} of ${row.payment_request_id}) settled: ${row.state}${forced ? ' (forced)' : ''}\n` +
          `the provider shows: ${providerShows}`,
      };
    } catch (err) {
      if (err instanceof DecisionRefused) throw new CliError(err.message);
      throw err;
    }
  },
};

/** A value kept in the ledger and the audit: no control character (the database refuses NUL). */
function printable(option: string, value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(value)) throw new CliError(`--${option} must not contain control characters`);
  return value;
}
