import type { ControlCommands } from '../server.ts';
import type { CommandContext } from './command-context.ts';
import { runCommand } from './run-command.ts';

/**
 * How `payreq serve` runs the CLI commands that reach it through the control channel: the
 * very same commands, on the service's own database and caches (a key revoked here is
 * forgotten by the service at once).
 */
export const controlCommands: ControlCommands = ({ config, db, app, log }) => {
  const ctx: CommandContext = {
    config,
    db,
    repos: app.repos,
    keyChanged: (prefix) => app.auth.forget(prefix),
    tenantChanged: (tenantId) => app.auth.forgetTenant(tenantId),
    app,
  };
  return (argv, stdin, file) => {
    log.info({ command: argv.slice(0, 2).join(' ') }, 'CLI command through the control channel');
    return runCommand(argv, ctx, (err) => log.error({ err }, 'CLI command failed'), stdin, file);
  };
};
