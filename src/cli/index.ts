// The command line and what the service needs from it: the control channel that
// lets CLI commands reach a service holding a PGlite directory, the lock, the first start.
export { CliError, errorLine } from './cli-error.js';
export type { CommandArgs, CommandContext, CommandResult, CommandSpec, Outcome } from './command-context.js';
export { COMMANDS } from './command-table.js';
export { type ControlServer, sendToService, socketPathFor, startControlServer } from './control-channel.js';
export { DataDirBusyError, type DataDirLock, type LockHolder, tryLock } from './data-dir-lock.js';
export { createDemoDataOnce, type DemoData, demoBanner, withSecretKey } from './first-start.js';
export { type CliJob, JOBS } from './jobs.js';
export { type ParsedCommand, parseCommandLine } from './parse-command-line.js';
export { runCli } from './run-cli.js';
export { executeCommand, type ParsedInvocation, runCommand } from './run-command.js';
