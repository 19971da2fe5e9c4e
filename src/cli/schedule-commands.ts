import type { JobRunRow, ScheduleRow } from '../db/index.ts';
import { cronProblem, nextRunAfter } from '../jobs/index.ts';
import { CliError } from './cli-error.ts';
import type { CommandContext, CommandSpec } from './command-context.ts';
import * as check from './input-checks.ts';

const iso = (d: Date | null) => (d === null ? null : new Date(d).toISOString());

function presentSchedule(s: ScheduleRow): Record<string, unknown> {
  return {
    job: s.job,
    cron: s.cron,
    timezone: s.timezone,
    enabled: s.enabled,
    last_run_at: iso(s.last_run_at),
    last_outcome: s.last_outcome,
    next_run_at: iso(s.next_run_at),
    updated_at: iso(s.updated_at),
  };
}

function presentRun(r: JobRunRow): Record<string, unknown> {
  return {
    id: Number(r.id),
    job: r.job,
    slot: iso(r.slot),
    started_at: iso(r.started_at),
    finished_at: iso(r.finished_at),
    outcome: r.outcome,
    counts: r.counts,
    error: r.error,
    attempt: r.attempt,
    run_date: r.run_date,
    started_by: r.started_by,
  };
}

async function knownSchedule(ctx: CommandContext, job: string): Promise<ScheduleRow> {
  const s = await ctx.repos.schedules.get(job);
  if (s) return s;
  const names = (await ctx.repos.schedules.list()).map((x) => x.job).join(', ');
  throw new CliError(`unknown job "${job}" (scheduled jobs: ${names})`);
}

export const scheduleList: CommandSpec = {
  name: 'schedule list',
  summary: 'list the job schedules, with their last and next runs',
  usage: 'payreq schedule list [--json]',
  options: {},
  needs: 'schema',
  async run(ctx) {
    const schedules = await ctx.repos.schedules.list();
    const lines = schedules.map(
      (s) =>
        `${s.job.padEnd(26)} ${s.cron.padEnd(14)} ${s.timezone.padEnd(16)} ${s.enabled ? 'on ' : 'off'}  ` +
        `next ${iso(s.next_run_at) ?? '(first scheduler pass)'}  last ${iso(s.last_run_at) ?? 'never'}${s.last_outcome ? ` (${s.last_outcome})` : ''}`,
    );
    return { json: { schedules: schedules.map(presentSchedule) }, text: `${lines.join('\n')}\n` };
  },
};

export const scheduleSet: CommandSpec = {
  name: 'schedule set',
  summary: 'change a job schedule (cron expression, time zone, on or off)',
  usage: 'payreq schedule set NAME [--cron EXPR] [--timezone ZONE] [--enable | --disable] [--json]',
  help: [
    '  NAME             the job, e.g. create_deferred_payments (see payreq schedule list)',
    '  --cron EXPR      5 fields: minute hour day-of-month month day-of-week, e.g. "0 7 * * *"',
    '  --timezone ZONE  IANA time zone the expression is read in, e.g. Europe/Paris',
    '  --enable         run it on schedule again (from the next slot: missed ones are not replayed)',
    '  --disable        never run it until enabled (payreq job run still works)',
    'The next run is computed again from now.',
  ].join('\n'),
  options: {
    cron: { type: 'string' },
    timezone: { type: 'string' },
    enable: { type: 'boolean' },
    disable: { type: 'boolean' },
  },
  positionals: ['NAME'],
  needs: 'schema',
  async run(ctx, { options, positionals }) {
    const current = await knownSchedule(ctx, positionals[0] ?? '');
    if (options.enable && options.disable) throw new CliError('--enable and --disable cannot be given together');
    const cron = (options.cron as string | undefined)?.trim() ?? current.cron;
    const problem = cronProblem(cron);
    if (problem) throw new CliError(`--cron "${cron}" is not a usable cron expression: ${problem}`);
    const rawZone = options.timezone as string | undefined;
    const timezone = rawZone === undefined ? current.timezone : check.timezone(rawZone);
    const enabled = options.enable ? true : options.disable ? false : current.enabled;
    const nextRunAt = enabled ? nextRunAfter(cron, timezone, new Date()) : null;
    const updated = await ctx.repos.schedules.update(current.job, { cron, timezone, enabled, nextRunAt });
    if (!updated) throw new CliError(`unknown job "${current.job}"`);
    return {
      json: presentSchedule(updated),
      text: `${updated.job}: "${updated.cron}" in ${updated.timezone}, ${updated.enabled ? `on, next run ${iso(updated.next_run_at)}` : 'off'}\n`,
    };
  },
};

export const scheduleRuns: CommandSpec = {
  name: 'schedule runs',
  summary: 'the run history of scheduled jobs, newest first',
  usage: 'payreq schedule runs [NAME] [--limit N] [--json]',
  help: ['  NAME       only this job', '  --limit N  at most N runs (default 20, up to 1000)'].join('\n'),
  options: { limit: { type: 'string' } },
  optionalPositionals: ['NAME'],
  needs: 'schema',
  async run(ctx, { options, positionals }) {
    const name = positionals[0];
    if (name !== undefined) await knownSchedule(ctx, name);
    const rawLimit = (options.limit as string | undefined) ?? '20';
    const limit = Number(rawLimit);
    if (!/^\d+$/.test(rawLimit) || limit < 1 || limit > 1000) {
      throw new CliError(`--limit must be a whole number from 1 to 1000 (got "${rawLimit}")`);
    }
    const runs = await ctx.repos.schedules.runs(name, limit);
    const lines = runs.map(
      (r) =>
        `${iso(r.started_at)}  ${r.job.padEnd(26)} ${r.outcome.padEnd(8)} for ${r.run_date ?? '?'}  by ${(r.started_by ?? '?').padEnd(12)} ` +
        (r.attempt > 1 ? `attempt ${r.attempt}  ` : '') +
        (r.error ? `error: ${r.error}` : JSON.stringify(r.counts ?? {})),
    );
    return {
      json: { runs: runs.map(presentRun) },
      text: runs.length === 0 ? 'No runs yet.\n' : `${lines.join('\n')}\n`,
    };
  },
};
