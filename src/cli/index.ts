// The command line: parsing, the command table, running a command here or, when a service
// holds the PGlite directory, through its control channel (src/instance/).
export { CliError, errorLine } from './cli-error.js';
export type { CommandArgs, CommandContext, CommandResult, CommandSpec, Outcome } from './command-context.js';
export { COMMANDS } from './command-table.js';
export { type CliJob, JOBS } from './jobs.js';
export { type ParsedCommand, parseCommandLine } from './parse-command-line.js';
export { runCli } from './run-cli.js';
export { executeCommand, type ParsedInvocation, runCommand } from './run-command.js';
