import {
  adminCreateUser,
  adminDisableUser,
  adminEnableUser,
  adminEndSessions,
  adminGrant,
  adminListUsers,
  adminResetTwoFactor,
  adminSetPassword,
} from './admin-commands.ts';
import { booksCheck, booksSettle } from './books-commands.ts';
import type { CommandSpec } from './command-context.ts';
import { exportCommand } from './export-commands.ts';
import { jobRunCommand } from './job-commands.ts';
import { keyCreate, keyDisable, keyEnable, keyList, keyRevoke } from './key-commands.ts';
import { migrateCommand } from './migrate-command.ts';
import {
  payoutsFetch,
  payoutsImport,
  payoutsList,
  settlementsFetch,
  settlementsImport,
  settlementsList,
} from './payouts-commands.ts';
import { pmsPostings, pmsRetry, tenantSetPms } from './pms-commands.ts';
import { tenantSetProvider } from './provider-commands.ts';
import { scheduleList, scheduleRuns, scheduleSet } from './schedule-commands.ts';
import { secretsReseal } from './secrets-commands.ts';
import { tenantCreate, tenantList, tenantSetLogo, tenantShow, tenantUpdate } from './tenant-commands.ts';
import {
  webhookCreate,
  webhookDelete,
  webhookList,
  webhookRedeliver,
  webhookRotateSecret,
} from './webhook-commands.ts';

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
  tenantSetPms,
  pmsPostings,
  pmsRetry,
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
  payoutsImport,
  payoutsFetch,
  payoutsList,
  settlementsImport,
  settlementsFetch,
  settlementsList,
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
