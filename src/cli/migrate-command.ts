import { migrate } from '../db/index.ts';
import { plural } from '../i18n/index.ts';
import type { CommandSpec } from './command-context.ts';

export const migrateCommand: CommandSpec = {
  name: 'migrate',
  summary: 'apply the database migrations not applied yet (serve does it too)',
  usage: 'payreq migrate [--json]',
  options: {},
  needs: 'raw',
  async run(ctx) {
    const applied = await migrate(ctx.db);
    return {
      json: { applied },
      text:
        applied.length === 0
          ? 'The database is up to date: no migration to apply.'
          : `Applied ${plural('en', applied.length, { one: '# migration', other: '# migrations' })}:\n${applied.map((f) => `  ${f}`).join('\n')}`,
    };
  },
};
