import { parseArgs } from 'node:util';
import { CliError } from './cli-error.ts';
import type { CommandArgs, CommandSpec } from './command-context.ts';
import { COMMANDS } from './command-table.ts';

export type ParsedCommand =
  | { kind: 'help'; text: string }
  | { kind: 'command'; spec: CommandSpec; args: CommandArgs; json: boolean };

const HELP_FLAGS = new Set(['--help', '-h', 'help']);

function generalHelp(commands: readonly CommandSpec[]): string {
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  return [
    'payreq: payment requests for hotels.',
    '',
    'Usage: payreq COMMAND [options]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    '',
    'Every command takes --help, and --json to print one JSON object on stdout.',
    'Errors go to stderr, one line, with exit status 1.',
    'Configuration: environment variables and .env (DATABASE_URL picks the database).',
    '',
  ].join('\n');
}

function commandHelp(spec: CommandSpec): string {
  return [`${spec.summary}`, '', `Usage: ${spec.usage}`, ...(spec.help ? ['', spec.help] : []), ''].join('\n');
}

function groupHelp(group: string, commands: readonly CommandSpec[]): string {
  return [`Usage: payreq ${group} SUBCOMMAND`, '', ...commands.map((c) => `  ${c.usage}\n      ${c.summary}`), ''].join(
    '\n',
  );
}

/** parseArgs speaks of its own API; the user gets one short line and where to look. */
function usageError(err: unknown, spec: CommandSpec): CliError {
  const code = (err as { code?: string }).code;
  const message = err instanceof Error ? err.message : String(err);
  const option = /'(-{1,2}[^' ]+)/.exec(message)?.[1];
  const what =
    code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION'
      ? `unknown option ${option ?? ''}`.trim()
      : code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option
        ? /argument missing/.test(message)
          ? `option ${option} needs a value`
          : /ambiguous/.test(message)
            ? `option ${option} needs a value (got another option)`
            : `option ${option} takes no value`
        : message.split('. ')[0];
  return new CliError(`${what} (see payreq ${spec.name} --help)`);
}

/**
 * Reads argv into one command of the table. It needs no database and no configuration, so
 * `--help` and usage errors answer at once. The running service parses the same way.
 */
export function parseCommandLine(argv: readonly string[], commands: readonly CommandSpec[] = COMMANDS): ParsedCommand {
  const [first, second] = argv;
  if (first === undefined || HELP_FLAGS.has(first)) return { kind: 'help', text: generalHelp(commands) };
  const spec = commands.find((c) => c.name === `${first} ${second}`) ?? commands.find((c) => c.name === first);
  if (!spec) {
    const group = commands.filter((c) => c.name.startsWith(`${first} `));
    if (group.length === 0) throw new CliError(`unknown command "${first}" (see payreq --help)`);
    if (second !== undefined && HELP_FLAGS.has(second)) return { kind: 'help', text: groupHelp(first, group) };
    const subs = group.map((c) => c.name.split(' ')[1]).join(', ');
    if (second === undefined || second.startsWith('-')) {
      throw new CliError(`"${first}" needs a subcommand: ${subs} (see payreq ${first} --help)`);
    }
    throw new CliError(`unknown command "${first} ${second}": ${first} takes ${subs}`);
  }

  const rest = argv.slice(spec.name.split(' ').length);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...rest],
      options: { ...spec.options, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw usageError(err, spec);
  }
  const options = parsed.values as Record<string, string | boolean | string[] | undefined>;
  if (options.help) return { kind: 'help', text: commandHelp(spec) };
  const expected = spec.positionals ?? [];
  if (parsed.positionals.length < expected.length) {
    throw new CliError(`missing ${expected.slice(parsed.positionals.length).join(' ')} (usage: ${spec.usage})`);
  }
  const most = expected.length + (spec.optionalPositionals?.length ?? 0);
  if (parsed.positionals.length > most) {
    const extra = parsed.positionals[most];
    throw new CliError(`unexpected argument "${extra}" (usage: ${spec.usage})`);
  }
  return { kind: 'command', spec, args: { options, positionals: parsed.positionals }, json: options.json === true };
}
