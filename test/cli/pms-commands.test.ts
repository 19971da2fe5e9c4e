import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ApaleoFake, startApaleoFake } from '../fakes/apaleo/apaleo-fake.ts';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.ts';
import { assertFails, cliEnv, killAll, parseJson, payreq, pgliteDataDir, scratchDir } from './payreq-process.ts';

const SECRETS = JSON.stringify({ client_id: 'HOTEL-APP', client_secret: 'the-secret' });

// `payreq tenant set-pms`, `tenant show` and `pms postings` as a user runs them: the executable,
// a process of its own, against the Apaleo fake over HTTP.
describe(`payreq tenant set-pms / pms postings, the executable (${ENGINE})`, { timeout: 600_000 }, () => {
  const scratch = scratchDir();
  let testDb: TestDatabase | undefined;
  let env: NodeJS.ProcessEnv;
  let apaleo: ApaleoFake;
  let tenant: string;
  const run = (args: string[], input?: string) => payreq(args, env, scratch.dir, 60_000, input);
  const connectArgs = (property = 'MUC') => [
    'tenant',
    'set-pms',
    '--tenant',
    tenant,
    '--pms',
    'apaleo',
    '--property-id',
    property,
    '--api-url',
    apaleo.url,
    '--identity-url',
    apaleo.url,
    '--secrets-stdin',
    '--json',
  ];
  const pms = async () => parseJson<{ pms: unknown }>(await run(['tenant', 'show', '--tenant', tenant, '--json'])).pms;

  before(async () => {
    apaleo = await startApaleoFake();
    apaleo.store.addClient('HOTEL-APP', 'the-secret');
    apaleo.store.addProperty('MUC', 'Hotel München');
    if (ENGINE === 'postgres') testDb = await createTestDatabase();
    env = cliEnv({ DATABASE_URL: testDb ? testDb.url : `pglite://${pgliteDataDir(`${scratch.dir}/data`)}` });
    tenant = parseJson<{ id: string }>(await run(['tenant', 'create', '--name', 'Hôtel Apaleo', '--json'])).id;
  });
  after(async () => {
    killAll();
    await apaleo.close();
    await testDb?.drop();
    scratch.cleanup();
  });

  test('bad input and refusals: one line each, nothing stored', async () => {
    const cases: [string[], string | undefined, RegExp][] = [
      [connectArgs().filter((a) => a !== '--secrets-stdin'), undefined, /--secrets-stdin is required/],
      [connectArgs(), 'not json', /standard input must be a JSON object \{"client_id", "client_secret"\}/],
      [connectArgs(), JSON.stringify({ client_id: 'HOTEL-APP' }), /"client_secret" is required/],
      [connectArgs().map((a) => (a === apaleo.url ? 'ftp://x' : a)), SECRETS, /--api-url must be an http/],
      [connectArgs(''), SECRETS, /--property-id is required/],
      [connectArgs(), JSON.stringify({ client_id: 'HOTEL-APP', client_secret: 'wrong' }), /refused the client id/],
      [connectArgs('BER'), SECRETS, /no property "BER".*nothing stored/],
      [['tenant', 'set-pms', '--tenant', tenant, '--pms', 'mews'], undefined, /--pms must be apaleo or none/],
      [['tenant', 'set-pms', '--tenant', tenant, '--pms', 'none', '--property-id', 'MUC'], undefined, /takes no/],
    ];
    for (const [args, input, why] of cases) assertFails(await run(args, input), why);
    assert.equal(await pms(), null);
  });

  test('connected: show gives the property and no secret; postings are none; none disconnects', async () => {
    const r = await run(connectArgs(), SECRETS);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /the-secret/);
    const shown = (await pms()) as Record<string, unknown>;
    assert.deepEqual(
      [shown.kind, shown.property_id, shown.property_name, shown.last_posting],
      ['apaleo', 'MUC', 'Hotel München', null],
    );
    const listed = parseJson<{ postings: unknown[] }>(await run(['pms', 'postings', '--tenant', tenant, '--json']));
    assert.deepEqual(listed, { postings: [] });
    const off = await run(['tenant', 'set-pms', '--tenant', tenant, '--pms', 'none', '--json']);
    assert.deepEqual(parseJson(off), { tenant_id: tenant, pms: null });
    assert.equal(await pms(), null);
  });
});
