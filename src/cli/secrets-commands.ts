import { plural } from '../i18n/index.ts';
import { type ResealResult, resealAll, resolveSecretKeys } from '../secrets/index.ts';
import { CliError } from './cli-error.ts';
import type { CommandSpec } from './command-context.ts';

const DEFAULT_BATCH = 500;
const MAX_BATCH = 10_000;

function batchSize(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_BATCH;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > MAX_BATCH) {
    throw new CliError(`--batch must be a whole number from 1 to ${MAX_BATCH} (got "${raw}")`);
  }
  return n;
}

function summary(r: ResealResult): string {
  const remaining = Object.entries(r.remaining);
  const lines = [
    `resealed ${plural('en', r.resealed, { one: '# value', other: '# values' })} under key "${r.current_key_id}"` +
      (r.changed_meanwhile ? ` (${r.changed_meanwhile} changed meanwhile and kept their newer value)` : ''),
    ...Object.entries(r.kinds).map(
      ([kind, c]) =>
        `  ${kind.padEnd(18)} resealed ${c.resealed}, failed ${c.failed}, changed meanwhile ${c.changed_meanwhile}`,
    ),
    remaining.length === 0
      ? 'no value is under another key'
      : `remaining under other keys: ${remaining.map(([id, n]) => `${id}: ${n}`).join(', ')}`,
  ];
  if (r.failed > 0) {
    lines.push(
      `${plural('en', r.failed, { one: '# value could not be opened and was', other: '# values could not be opened and were' })} left as they are:`,
    );
    for (const f of r.failures) lines.push(`  ${f.kind} ${f.row}: ${f.error}`);
  }
  return `${lines.join('\n')}\n`;
}

export const secretsReseal: CommandSpec = {
  name: 'secrets reseal',
  summary: 'seal every stored secret again with the current SECRET_KEY (after a key rotation)',
  usage: 'payreq secrets reseal [--batch N] [--json]',
  help: [
    `  --batch N   rows read and written together (default ${DEFAULT_BATCH}, at most ${MAX_BATCH})`,
    "Card tokens, provider account secrets, webhook secrets and back-office users' TOTP secrets sealed",
    'under a retired key',
    '(SECRET_KEYS_OLD) are opened with it and sealed with SECRET_KEY (SECRET_KEY_ID). Safe while the',
    'service runs, and resumable: run it again after an interruption. When it reports 0 remaining',
    'under an old id, that key can be removed from SECRET_KEYS_OLD.',
  ].join('\n'),
  options: { batch: { type: 'string' } },
  needs: 'schema',
  async run(ctx, { options }) {
    const size = batchSize(options.batch as string | undefined);
    const ring = ctx.app?.secretKeys ?? (await resolveSecretKeys(ctx.config, ctx.repos));
    const result = await resealAll(ctx.repos.sealedValues, ring, size);
    return { json: { ...result }, text: summary(result) };
  },
};
