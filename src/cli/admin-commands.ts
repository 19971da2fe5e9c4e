import { CliError } from './cli-error.js';
import type { CommandSpec } from './command-context.js';

export const adminCreateUser: CommandSpec = {
  name: 'admin create-user',
  summary: 'create a user of the administration interface (not available yet)',
  usage: 'payreq admin create-user --username U --password-stdin [--tenant ID] [--json]',
  help: '  The administration interface is not built yet; this command answers so until it is.',
  options: { username: { type: 'string' }, 'password-stdin': { type: 'boolean' }, tenant: { type: 'string' } },
  needs: 'schema',
  async run() {
    throw new CliError('admin create-user is not available yet: the administration interface does not exist yet');
  },
};
