import {
  adminCreateUser,
  adminDisableUser,
  adminEnableUser,
  adminEndSessions,
  adminGrant,
  adminListUsers,
  adminResetTwoFactor,
  adminSetPassword,
} from './admin-commands.js';
import { booksCheck, booksSettle } from './books-commands.js';
import type { CommandSpec } from './command-context.js';
import { exportCommand } from './export-commands.js';
import { jobRunCommand } from './job-commands.js';
import { keyCreate, keyDisable, keyEnable, keyList, keyRevoke } from './key-commands.js';
import { migrateCommand } from './migrate-command.js';
import { tenantSetProvider } from './provider-commands.js';
import { scheduleList, scheduleRuns, scheduleSet } from './schedule-commands.js';
import { secretsReseal } from './secrets-commands.js';
import { tenantCreate, tenantList, tenantSetLogo, tenantShow, tenantUpdate } from './tenant-commands.js';
import {
  webhookCreate,
  webhookDelete,
  webhookList,
  webhookRedeliver,
  webhookRotateSecret,
} from './webhook-commands.js';

/** Runs in its own process only: the service is not a command one sends to the service. */
export const serveCommand: CommandSpec = {
  name: 'serve',
  summary: 'run the service (applies migrations first)',
  usage: 'payreq serve',
  help: [
    'Configuration comes from the environment and from .env when present:',
    '  PORT, HOST, DATABASE_URL, PUBLIC_BASE_URL, NODE_ENV, SECRET_KEY, ... (see docs/configuration.md).',
    'On a pglite:// directory it holds the directory and runs the CLI commands sent to it.',
  ].join('\n'),
  options: {},
  needs: 'service',
};

/** Every command (docs/cli.md), in the order `payreq --help` lists them. */
export const COMMANDS: readonly CommandSpec[] = [
  serveCommand,
  migrateCommand,
  tenantCreate,
  tenantList,
  tenantShow,
  tenantUpdate,
  tenantSetLogo,
  tenantSetProvider,
  keyCreate,
  keyList,
  keyDisable,
  keyEnable,
  keyRevoke,
  jobRunCommand(),
  scheduleList,
  scheduleSet,
  scheduleRuns,
  booksCheck,
  booksSettle,
  exportCommand,
  webhookCreate,
  webhookList,
  webhookDelete,
  webhookRedeliver,
  webhookRotateSecret,
  adminCreateUser,
  adminGrant,
  adminListUsers,
  adminDisableUser,
  adminEnableUser,
  adminSetPassword,
  adminResetTwoFactor,
  adminEndSessions,
  secretsReseal,
];
