import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { type Database, migrate, openDatabase, repositories } from '../../src/db/index.ts';
import { addDays } from '../../src/domain/index.ts';
import { dateIn } from '../../src/jobs/index.ts';
import { providerSecrets, singleKey } from '../../src/secrets/index.ts';
import { LYRA_CARDS } from '../fakes/lyra/fake-store.ts';
import { DEMO_SHOP, type LyraFake, startLyraFake } from '../fakes/lyra/lyra-fake.ts';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.ts';
import { seedRegisteredImprints } from '../helpers/registered-imprints.ts';
import {
  cliEnv,
  freePort,
  killAll,
  parseJson,
  payreq,
  pgliteDataDir,
  ServeProcess,
  scratchDir,
} from './payreq-process.ts';

/** Enough imprints that the daily job is still at work when the test has seen it start holding. */
const IMPRINTS = 1500;
const SECRET_KEY = 'crash-test-'.repeat(4);

/** Resolves once `check` is true; rejects, saying `what`, after `timeoutMs` (a hang guard only). */
/** The shortest in-doubt grace PROVIDER_TIMEOUT_MS=2000 allows. */
const GRACE_SECONDS = 11;

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The silent payments (the holds) the provider has been asked for so far. */
const holdsAsked = (lyra: LyraFake) =>
  lyra.calls.filter((c) => c.service === 'Charge/CreatePayment' && c.body.formAction === 'SILENT').length;

/** A card saved at the provider, as a guest's registration leaves it: its token. */
function savedCard(lyra: LyraFake, orderId: string): string {
  const form = lyra.store.issueForm({
    kind: 'register',
    orderId,
    amount: 0,
    currency: 'EUR',
    metadata: null,
    customer: {},
    ipnTargetUrl: null,
  });
  const token = lyra.store.submitForm(form, LYRA_CARDS.accepted).paymentMethodToken;
  assert.ok(token);
  return token;
}

interface State {
  held: number;
  claimed: number;
  runs: { outcome: string; attempt: number }[];
}

async function state(db: Database): Promise<State> {
  const r = await db.query<Omit<State, 'runs'>>(
    `SELECT count(*) FILTER (WHERE status = 'AUTHORISED_TO_VALIDATE')::int AS held,
            count(*) FILTER (WHERE pending_action IS NOT NULL)::int AS claimed
       FROM payment_requests`,
  );
  const runs = await db.query<{ outcome: string; attempt: number }>(
    "SELECT outcome, attempt FROM job_runs WHERE job = 'create_deferred_payments' ORDER BY id",
  );
  return { ...(r.rows[0] as Omit<State, 'runs'>), runs: runs.rows };
}

/** The holds the provider placed, by order: the books' other side. */
function providerHolds(lyra: LyraFake): Map<string, number> {
  const by = new Map<string, number>();
  for (const t of lyra.store.transactions.values()) {
    if (t.orderId && t.operationType === 'DEBIT' && t.detailedStatus === 'AUTHORISED_TO_VALIDATE')
      by.set(t.orderId, (by.get(t.orderId) ?? 0) + 1);
  }
  return by;
}

describe(`a scheduled daily run killed mid-job (kill -9) is run again after a restart (${ENGINE})`, {
  timeout: 600_000,
}, () => {
  const scratch = scratchDir();
  let pg: TestDatabase | undefined;
  let lyra: LyraFake | undefined;
  after(async () => {
    killAll();
    await pg?.drop();
    await lyra?.close();
    scratch.cleanup();
  });

  test('every due imprint is held exactly once, and the run is not left `running`', async () => {
    let url: string;
    /** The database from the test's side; on PGlite only while no service holds the directory. */
    let withDb: <T>(fn: (db: Database) => Promise<T>) => Promise<T>;
    if (ENGINE === 'postgres') {
      pg = await createTestDatabase();
      url = pg.url;
      const db = pg.db;
      withDb = (fn) => fn(db);
    } else {
      const dir = pgliteDataDir(path.join(scratch.dir, 'data'));
      url = `pglite://${dir}`;
      withDb = async (fn) => {
        const db = await openDatabase({ engine: 'pglite', dir }, 'command');
        try {
          return await fn(db);
        } finally {
          await db.close();
        }
      };
    }

    // The hotel's provider is Lyra, a remote service (the wire-level fake, in this process): the
    // test sees each hold asked as it arrives, while the service is busy with its job.
    const fake = await startLyraFake();
    lyra = fake;
    // Check-ins tomorrow and the day after, in the schedule's zone: due today, whatever the hour.
    const today = dateIn('Europe/Paris', new Date());
    let ids: string[] = [];
    await withDb(async (db) => {
      await migrate(db);
      const repos = repositories(db);
      const tenant = await repos.tenants.create({ name: 'Hôtel Kill' });
      const secrets = { password: DEMO_SHOP.password, public_key: DEMO_SHOP.publicKey, hmac_key: DEMO_SHOP.hmacKey };
      await repos.providerAccounts.set(tenant.id, {
        provider: 'lyra',
        shopId: DEMO_SHOP.shopId,
        apiUrl: fake.apiUrl,
        staticUrl: fake.staticUrl,
        mode: 'TEST',
        secretsSealed: providerSecrets(singleKey(SECRET_KEY)).seal(JSON.stringify(secrets), tenant.id),
      });
      const imprints = Array.from({ length: IMPRINTS }, (_, i) => ({
        checkin: addDays(today, 1 + (i % 2)),
        cardToken: savedCard(fake, `registration-${i}`),
      }));
      ids = await seedRegisteredImprints(db, {
        tenantId: tenant.id,
        secretKey: SECRET_KEY,
        provider: 'lyra',
        imprints,
      });
      // The daily job alone, due now, on its daily cron: its next slot is tomorrow.
      await db.query(
        `UPDATE job_schedules SET enabled = (job = 'create_deferred_payments'),
           next_run_at = CASE WHEN job = 'create_deferred_payments' THEN now() END`,
      );
    });

    const env = cliEnv({
      DATABASE_URL: url,
      PORT: String(await freePort()),
      SECRET_KEY,
      LOG_LEVEL: 'info',
      // A dead run is known for dead 2 s after its last renewal (60 s in production).
      JOB_LEASE_SECONDS: '2',
      // reconcile_claims, run below, believes the provider's "not there" once GRACE_SECONDS
      // have passed since a row was written: the shortest grace a 2 s provider bound allows
      // (a Lyra call of 3 requests of 1.8 s, twice).
      PROVIDER_TIMEOUT_MS: '2000',
      IN_DOUBT_GRACE_SECONDS: String(GRACE_SECONDS),
    });

    const first = await ServeProcess.start(env, scratch.dir);
    await until('the daily job to be holding', () => holdsAsked(fake) >= 200);
    first.child.kill('SIGKILL');
    assert.equal(await first.exited, 'SIGKILL');
    // Every row the dead process wrote is older than this instant.
    const killedAt = Date.now();

    const killed = await withDb(state);
    assert.ok(
      killed.held > 0 && killed.held < IMPRINTS,
      `killed mid-run: ${killed.held} of ${IMPRINTS} held (0 or all: the test proves nothing)`,
    );
    assert.deepEqual(killed.runs, [{ outcome: 'running', attempt: 1 }]);

    const second = await ServeProcess.start(env, scratch.dir);
    await until('the slot to be run again and end', () =>
      /"attempt":2[^\n]*"msg":"scheduled job done"/.test(second.stdout),
    );
    // The claims the dead process had in flight (sent or not) are left alone by the second
    // attempt: reconcile_claims settles them by the provider's view of each order...
    // The grace is wall time: the dead process's rows are settled only once it has passed.
    await until('the in-doubt grace to pass since the kill', () => Date.now() - killedAt >= GRACE_SECONDS * 1000);
    parseJson(await payreq(['job', 'run', 'reconcile_claims', '--json'], env, scratch.dir));
    // ...and the ones it frees are held by the next run.
    parseJson(await payreq(['job', 'run', 'create_deferred_payments', '--json'], env, scratch.dir));
    assert.equal(await second.stop(), 0, second.stderr);

    // The slot's run, taken over as its second attempt, then the run by hand: each recorded.
    assert.deepEqual(await withDb(state), {
      held: IMPRINTS,
      claimed: 0,
      runs: [
        { outcome: 'ok', attempt: 2 },
        { outcome: 'ok', attempt: 1 },
      ],
    });
    const holds = providerHolds(fake);
    assert.deepEqual(
      { orders: holds.size, most: Math.max(...holds.values()), ours: ids.every((id) => holds.get(id) === 1) },
      { orders: IMPRINTS, most: 1, ours: true },
      'one hold at the provider for each imprint, never two',
    );
  });
});
