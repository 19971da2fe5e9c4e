// The command line: parsing, the command table, running a command here or, when a service
// holds the PGlite directory, through its control channel (src/instance/).
export { CliError, errorLine } from './cli-error.ts';
export type { CommandArgs, CommandContext, CommandResult, CommandSpec, Outcome } from './command-context.ts';
export { COMMANDS } from './command-table.ts';
export { type CliJob, JOBS, RUNNABLE } from './jobs.ts';
export { type ParsedCommand, parseCommandLine } from './parse-command-line.ts';
export { runCli } from './run-cli.ts';
export { executeCommand, type ParsedInvocation, runCommand } from './run-command.ts';
