import { CliError, errorLine } from './cli-error.ts';
import type { CommandContext, CommandResult } from './command-context.ts';
import { type ParsedCommand, parseCommandLine } from './parse-command-line.ts';

export type ParsedInvocation = Extract<ParsedCommand, { kind: 'command' }>;

export function failure(err: unknown): CommandResult {
  return { exitCode: 1, stdout: '', stderr: errorLine(err) };
}

/**
 * Runs a parsed command against a database and renders what it printed. The same function
 * serves the CLI on its own connection and the running service on its own: the user sees
 * the same output whichever process did the work.
 */
export async function executeCommand(
  parsed: ParsedInvocation,
  ctx: CommandContext,
  onUnexpected: (err: unknown) => void = () => {},
): Promise<CommandResult> {
  const { spec } = parsed;
  if (!spec.run)
    return failure(new CliError(`"${spec.name}" runs in its own process: start it with payreq ${spec.name}`));
  try {
    const outcome = await spec.run(ctx, parsed.args);
    if (outcome.raw !== undefined) return { exitCode: outcome.exitCode ?? 0, stdout: outcome.raw, stderr: '' };
    const stdout = parsed.json
      ? [...(outcome.jsonLines ?? []), outcome.json].map((line) => JSON.stringify(line)).join('\n')
      : outcome.text;
    return { exitCode: outcome.exitCode ?? 0, stdout: `${stdout}\n`, stderr: '' };
  } catch (err) {
    if (!(err instanceof CliError)) onUnexpected(err);
    return failure(err);
  }
}

/** argv in, output out: what the service runs for a command sent over its control channel. */
export async function runCommand(
  argv: readonly string[],
  ctx: CommandContext,
  onUnexpected?: (err: unknown) => void,
  stdin?: string,
  file?: Buffer,
): Promise<CommandResult> {
  let parsed: ParsedCommand;
  try {
    parsed = parseCommandLine(argv);
  } catch (err) {
    return failure(err);
  }
  if (parsed.kind === 'help') return { exitCode: 0, stdout: parsed.text, stderr: '' };
  const args = {
    ...parsed.args,
    ...(stdin === undefined ? {} : { stdin }),
    ...(file === undefined ? {} : { file }),
  };
  return executeCommand({ ...parsed, args }, ctx, onUnexpected);
}
