// The daily hold job on Stripe beside the sandbox, in one process on one database: the same
// number of registered IMPRINTs due on D, held by createDeferredPayments through the money
// runner, once with the tenants on the sandbox, once on Stripe (the test tree's stateful fake on
// loopback, the official SDK in between). What it measures is payreq's own path per hold with a
// provider that answers at once: the wire, the SDK and the fake's work on one side, the
// sandbox's in-database vault on the other. Not part of `npm run bench`: run it by hand,
//   node bench/stripe-hold-rate.ts [count] [DATABASE_URL]
// (PGlite in memory when no URL; a fresh PostgreSQL database is made and dropped otherwise).
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { loadConfig } from '../src/config/index.ts';
import { buildContext } from '../src/context.ts';
import { migrate, openDatabase, parseDatabaseUrl } from '../src/db/index.ts';
import { createDeferredPayments, deferredHoldsRepository } from '../src/holds/index.ts';
import { analyzeTables } from '../src/jobs/index.ts';
import { providerSecrets } from '../src/secrets/index.ts';
import { FAKE_KEYS, startStripeFake } from '../test/fakes/stripe/stripe-fake.ts';

const COUNT = Number(process.argv[2] ?? 2000);
const POSTGRES = process.argv[3];
const SECRET_KEY = randomBytes(32).toString('base64url');
const TENANTS = 20;

async function database(name: string): Promise<{ url: string; drop: () => Promise<void> }> {
  if (!POSTGRES) return { url: 'pglite://memory', drop: async () => undefined };
  const admin = new pg.Client({ connectionString: POSTGRES });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(POSTGRES);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: POSTGRES });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

async function run(provider: 'sandbox' | 'stripe'): Promise<void> {
  const target = await database(`bench_holds_${provider}_${Date.now()}`);
  const fake = provider === 'stripe' ? await startStripeFake() : undefined;
  const db = await openDatabase(parseDatabaseUrl(target.url));
  try {
    await migrate(db);
    const config = loadConfig({ DATABASE_URL: target.url, SECRET_KEY, NODE_ENV: 'test', WORKERS: 'off' });
    const ctx = await buildContext({ config, db });
    const date = new Date().toLocaleDateString('sv');
    const tenants: string[] = [];
    for (let i = 0; i < TENANTS; i++) {
      const t = await db.query<{ id: string }>('INSERT INTO tenants (id, name) VALUES ($1, $2) RETURNING id', [
        randomUUID(),
        `Bench hotel ${i}`,
      ]);
      const id = t.rows[0]?.id as string;
      tenants.push(id);
      if (fake) {
        const sealed = providerSecrets(ctx.secretKeys).seal(
          JSON.stringify({ secret_key: FAKE_KEYS.test, webhook_secret: 'whsec_BenchEndpointSecret000' }),
          id,
        );
        await ctx.repos.providerAccounts.set(id, {
          provider: 'stripe',
          apiUrl: fake.apiUrl,
          mode: 'TEST',
          secretsSealed: sealed,
          webhookEndpointId: null,
        });
      }
    }
    for (let i = 0; i < COUNT; i++) {
      const id = randomUUID();
      const tenant = tenants[i % TENANTS] as string;
      let token: string;
      if (fake) {
        const customer = fake.ops.createCustomer({ metadata: { payreq_request: id } });
        const pm = fake.ops.paymentMethod('4242424242424242', 12, 2031);
        pm.customer = customer.id;
        token = `${customer.id}/${pm.id}`;
      } else {
        token = `tok_${randomBytes(12).toString('hex')}`;
        await db.query(
          "INSERT INTO sandbox_tokens (token, card_number, exp_month, exp_year) VALUES ($1, '4242424242424242', 12, 2031)",
          [token],
        );
      }
      const checkin = new Date(Date.parse(`${date}T00:00:00Z`) + (i % 3) * 86_400_000).toISOString().slice(0, 10);
      await db.query(
        `INSERT INTO payment_requests (id, tenant_id, reference, request_type, status, amount, currency, guest_email,
           guest_first_name, guest_last_name, language, reservation_ref, reservation_data, checkin, masked_pan,
           card_expiry_month, card_expiry_year, card_token, provider, link_expires_at, email_sent)
         VALUES ($1, $2, $3, 'IMPRINT', 'AUTHORISED', 15000, 'EUR', 'g@example.com', 'G', 'N', 'en', $3,
           jsonb_build_object('checkin', $4::text), $4::date, '424242XXXXXX4242', 12, 2031, $5, $6,
           now() + interval '30 days', true)`,
        [id, tenant, `IMP-${i}`, checkin, ctx.cardTokens.seal(token, id), provider],
      );
    }
    await analyzeTables(ctx.repos);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const r = await createDeferredPayments(
      { holds: deferredHoldsRepository(ctx.db), runner: ctx.runner, cardTokens: ctx.cardTokens },
      date,
    );
    const s = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const errors = await db.query<{ error: string; n: number }>(
      "SELECT left(error, 120) AS error, count(*)::int AS n FROM money_ledger WHERE state <> 'succeeded' GROUP BY 1",
    );
    if (errors.rows.length > 0) console.error(JSON.stringify(errors.rows));
    console.log(
      JSON.stringify({
        engine: POSTGRES ? 'postgres' : 'pglite',
        provider,
        held: r.held,
        failed: r.failed,
        in_doubt: r.in_doubt,
        wall_s: Math.round(s * 100) / 100,
        per_second: Math.round(r.held / s),
        process_cpu_s: Math.round(((cpu.user + cpu.system) / 1e6) * 100) / 100,
      }),
    );
  } finally {
    await db.close();
    await fake?.close();
    await target.drop();
  }
}

await run('sandbox');
await run('stripe');
