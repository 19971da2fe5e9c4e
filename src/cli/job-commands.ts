import { CliError } from './cli-error.ts';
import type { CommandSpec } from './command-context.ts';
import * as check from './input-checks.ts';
import { type CliJob, RUNNABLE, runJobByHand } from './jobs.ts';

function known(jobs: readonly CliJob[]): string {
  return jobs.length === 0 ? 'no job is available yet' : `known jobs: ${jobs.map((j) => j.name).join(', ')}`;
}

export function jobRunCommand(jobs: readonly CliJob[] = RUNNABLE): CommandSpec {
  return {
    name: 'job run',
    summary: 'run a scheduled job now, through the job queue, as if today were --date',
    usage: 'payreq job run NAME [--date YYYY-MM-DD] [--json]',
    help: [
      '  NAME                 the job, e.g. create_deferred_payments',
      "  --date YYYY-MM-DD    run for that day (default: today in the job's schedule zone); a day",
      '                       after today is a test clock: refused in production, and while any',
      '                       hotel takes real payments',
      '',
      'Every run goes through the one job queue, as scheduled runs do: a run of the same job and',
      'day already under way (scheduled, or by hand elsewhere) is waited for, and its result printed.',
      'Each run is listed by `payreq schedule runs`, with who started it.',
      '',
      ...(jobs.length === 0 ? ['No job is available yet.'] : jobs.map((j) => `  ${j.name.padEnd(28)} ${j.summary}`)),
    ].join('\n'),
    options: { date: { type: 'string' } },
    positionals: ['NAME'],
    needs: 'schema',
    async run(ctx, { options, positionals }) {
      const name = positionals[0] ?? '';
      const job = jobs.find((j) => j.name === name);
      if (!job) throw new CliError(`unknown job "${name}" (${known(jobs)})`);
      const rawDate = options.date as string | undefined;
      const date = rawDate === undefined ? undefined : check.calendarDate('date', rawDate);
      return runJobByHand(ctx, job, date);
    },
  };
}
