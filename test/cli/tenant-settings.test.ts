import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.ts';
import { assertFails, cliEnv, killAll, parseJson, payreq, pgliteDataDir, scratchDir } from './payreq-process.ts';

interface TenantJson {
  id: string;
  name: string;
  sender_email: string | null;
  confirmation_email: boolean;
  timezone: string;
  hold_days: number;
  link_lifetime_days: number;
  create_rate_limit: number | null;
  changed?: string[];
}

describe(`payreq tenant update and show (${ENGINE})`, { timeout: 300_000 }, () => {
  const scratch = scratchDir();
  let testDb: TestDatabase | undefined;
  let env: NodeJS.ProcessEnv;
  const run = (...args: string[]) => payreq(args, env, scratch.dir);

  before(async () => {
    if (ENGINE === 'postgres') testDb = await createTestDatabase();
    env = cliEnv({ DATABASE_URL: testDb ? testDb.url : `pglite://${pgliteDataDir(`${scratch.dir}/data`)}` });
  });
  after(async () => {
    killAll();
    await testDb?.drop();
    scratch.cleanup();
  });

  test('changes only the settings given, and shows them', async () => {
    const { id } = parseJson<TenantJson>(
      await run('tenant', 'create', '--name', 'Lac', '--confirmation-email', '--json'),
    );
    const updated = parseJson<TenantJson>(
      await run(
        'tenant',
        'update',
        '--tenant',
        id,
        '--sender-email',
        'desk@lac.example',
        '--no-confirmation-email',
        '--timezone',
        'europe/zurich',
        '--hold-days',
        '4',
        '--link-lifetime-days',
        '10',
        '--create-rate-limit',
        '0',
        '--require-2fa',
        'true',
        '--json',
      ),
    );
    assert.deepEqual(updated.changed, [
      'sender_email',
      'confirmation_email',
      'timezone',
      'hold_days',
      'link_lifetime_days',
      'create_rate_limit',
      'require_2fa',
    ]);
    const shown = parseJson<TenantJson>(await run('tenant', 'show', '--tenant', id, '--json'));
    assert.deepEqual(
      { ...shown, created_at: undefined },
      {
        id,
        name: 'Lac',
        sender_email: 'desk@lac.example',
        confirmation_email: false,
        timezone: 'Europe/Zurich',
        hold_days: 4,
        link_lifetime_days: 10,
        guarantee_ask_guest: true,
        guarantee_max_asks: 2,
        create_rate_limit: 0,
        // The guest page's settings, none set yet.
        address: null,
        phone: null,
        contact_email: null,
        terms_url: null,
        accent_color: null,
        require_2fa: true,
        // Reminders and the daily digest, off by default.
        reminders: false,
        reminder_after_hours: 48,
        reminder_before_expiry_hours: 24,
        reminder_max: 2,
        digest_email: false,
        digest_hour: 7,
        digest_language: 'en',
        logo: null,
        created_at: undefined,
        provider_account: { provider: 'none', configured: false },
        // Not connected to a property management system (docs/apaleo.md).
        pms: null,
      },
    );

    // Empty clears a nullable setting; "default" returns the rate limit to the instance's.
    const cleared = parseJson<TenantJson>(
      await run('tenant', 'update', '--tenant', id, '--sender-email', '', '--create-rate-limit', 'default', '--json'),
    );
    assert.equal(cleared.sender_email, null);
    assert.equal(cleared.create_rate_limit, null);
    assert.equal(cleared.hold_days, 4, 'an option not given is unchanged');

    const text = await run('tenant', 'show', '--tenant', id);
    assert.equal(text.code, 0);
    assert.match(text.stdout, /sender_email\s+\(not set\)/);
    assert.match(text.stdout, /hold_days\s+4/);
    assert.match(text.stdout, /require_2fa\s+on/);
    const off = parseJson<TenantJson>(
      await run('tenant', 'update', '--tenant', id, '--require-2fa', 'false', '--json'),
    );
    assert.deepEqual(off.changed, ['require_2fa']);
  });

  test('a bad value is refused with its option named, and nothing is written', async () => {
    const { id } = parseJson<TenantJson>(await run('tenant', 'create', '--name', 'Strict', '--json'));
    const cases: [string[], RegExp][] = [
      [
        ['--tenant', id, '--name', 'Renamed', '--hold-days', '31', '--sender-email', 'a@b'],
        /--sender-email must be an e-mail address; --hold-days must be a whole number from 1 to 30/,
      ],
      [
        ['--tenant', id, '--sender-email', 'a@b.example\r\nBcc: x@y.example'],
        /--sender-email must be an e-mail address/,
      ],
      [['--tenant', id, '--timezone', 'Mars/Olympus'], /--timezone must be/],
      [['--tenant', id, '--link-lifetime-days', '1.5'], /whole number/],
      [['--tenant', id, '--name', '  '], /--name must not be empty/],
      [['--tenant', id, '--confirmation-email', '--no-confirmation-email'], /not both/],
      [['--tenant', id, '--require-2fa', 'on please'], /--require-2fa must be true or false/],
      [['--tenant', id], /nothing to change/],
      [['--tenant', '00000000-0000-4000-8000-000000000000', '--hold-days', '2'], /No tenant with id/],
    ];
    // Independent cases, a few side by side (on PGlite they take turns on the directory).
    for (let i = 0; i < cases.length; i += 3) {
      const batch = cases.slice(i, i + 3);
      const results = await Promise.all(batch.map(([args]) => run('tenant', 'update', ...args)));
      for (const [j, r] of results.entries()) assertFails(r, batch[j]?.[1] ?? /./);
    }
    assertFails(await run('tenant', 'show', '--tenant', 'nope'), /--tenant must be/);
    const shown = parseJson<TenantJson>(await run('tenant', 'show', '--tenant', id, '--json'));
    assert.equal(shown.name, 'Strict', 'a refused update writes nothing');
    assert.equal(shown.hold_days, 6);
  });
});
