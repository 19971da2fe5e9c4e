// The service side by side with a bare route and pgbench, on PostgreSQL, in one run:
//   node bench/side-by-side.ts [--seconds 4] [--rounds 2]
// (BENCH_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/postgres, is where the two
// databases are made; both are dropped at the end, also when a measurement fails.)
//
// Why: the bare baseline of bench/create.ts runs the service's own one-statement create on the
// service's own tables, so it tells what the service's Node code costs, not what its design is
// worth. This one compares the service with what a plain implementation of the same API would
// be, on one host, at 16 connections, each side measured in turn so drift hits all alike:
//
// - The service: the real app as bench/create.ts runs it (production mode, the proxy's
//   headers, a real API key, the route schema, an Idempotency-Key per create, the rate limit
//   raised), on its own migrated database, with 50 tenants. POST /api/payment-requests/ and
//   GET /api/payment-requests/:uuid/. Its create is one statement, one round trip.
// - The bare route (bench/bare-route.ts): Fastify with no logger and no schema, the API key
//   only picking the tenant from a map, on `pg` (a Pool of 16, named statements), in a database
//   of its own whose tables have the service's columns, checks and foreign keys but only the
//   indexes a plain implementation has (primary keys, unique (tenant_id, reference),
//   (tenant_id, created_at, id) for the list, (payment_request_id) on the history) and no
//   trigger. Its create is five round trips in one transaction: BEGIN; INSERT the Idempotency-Key
//   row; INSERT the request, its reference drawn from the tenant's sequence and formatted as the
//   service's, RETURNING it; INSERT the history row and the payment link's e-mail in the outbox
//   (one statement, a CTE); COMMIT. Its detail is one SELECT by (id, tenant) answered as the
//   same JSON fields as the service's.
// - pgbench running those same five statements as a script, 16 clients, on the lean tables: the
//   floor of that design, with no HTTP and no Node at all.
//
// Each round runs service create, bare create, pgbench, service detail, bare detail, one after
// the other; the best of the rounds is kept for each (bench/load.ts: bestOf). Every HTTP side
// must answer only 2xx and pgbench must count no failed transaction, or the run stops.
import { parseArgs } from 'node:util';
import pg from 'pg';
import { leanPgbenchScript, prepareLeanDatabase, startBareRoute } from './bare-route.ts';
import { CREATE_BODY, type Measure } from './create.ts';
import { localPostgresCpuS } from './daily-job.ts';
import { apiHeaders, type BenchTenant, freshDatabase, openStage, type Stage } from './environment.ts';
import { assertClean, bestOf, type LoadPlan, type LoadResult, runLoad } from './load.ts';
import { runPgbench } from './pgbench.ts';

export interface SideBySideResults {
  connections: number;
  tenants: number;
  create: { service: Costed; bare: Costed; pgbench: Costed };
  detail: { service: Costed; bare: Costed };
  createServiceToBare: number;
  detailServiceToBare: number;
  createServiceToPgbench: number;
  createBareToPgbench: number;
}

/**
 * A measurement with what it cost, per request: CPU of this process (the service's or the bare
 * route's, each alone under load in its turn; null for pgbench, a process of its own) and of
 * this host's PostgreSQL processes (null for a server elsewhere), over the measured seconds.
 */
export type Costed = Measure & { cpuUs: number | null; databaseUs: number | null };

export interface SideBySideOptions {
  seconds: number;
  rounds: number;
  log: (s: string) => void;
}

const CONNECTIONS = 16;
const TENANTS = 50;
/** How many of the measured tenant's requests the detail reads go round. */
const DETAIL_IDS = 500;

const fromLoad = (r: LoadResult): Measure => ({ rps: r.rps, p50: r.latency.p50, p99: r.latency.p99, mean: r.meanMs });

function createPlan(url: string, tenants: readonly BenchTenant[], seconds: number): LoadPlan {
  return {
    url,
    connections: CONNECTIONS,
    duration: seconds,
    method: 'POST',
    paths: ['/api/payment-requests/'],
    headers: tenants.map((t) => apiHeaders(t, { 'content-type': 'application/json' })),
    body: CREATE_BODY,
    unique: true,
  };
}

function detailPlan(url: string, t: BenchTenant, ids: readonly string[], seconds: number): LoadPlan {
  return {
    url,
    connections: CONNECTIONS,
    duration: seconds,
    method: 'GET',
    paths: ids.map((id) => `/api/payment-requests/${id}/`),
    headers: [apiHeaders(t)],
  };
}

async function idsOf(query: (sql: string, params: unknown[]) => Promise<{ rows: { id: string }[] }>, t: BenchTenant) {
  const sql = 'SELECT id FROM payment_requests WHERE tenant_id = $1 ORDER BY random() LIMIT $2';
  const ids = (await query(sql, [t.id, DETAIL_IDS])).rows.map((r) => r.id);
  if (ids.length < 10) throw new Error(`side by side: tenant ${t.id} has only ${ids.length} requests to read`);
  return ids;
}

/** Both sides answer a detail with the same fields, in the same order: else they are not compared. */
async function assertSameDetailFields(
  service: string,
  bare: string,
  t: BenchTenant,
  serviceId: string,
  bareId: string,
) {
  const fields = async (url: string) => {
    const r = await fetch(url, { headers: apiHeaders(t) });
    if (r.status !== 200) throw new Error(`side by side: GET ${url}: ${r.status} ${await r.text()}`);
    return Object.keys((await r.json()) as Record<string, unknown>).join(',');
  };
  const s = await fields(`${service}/api/payment-requests/${serviceId}/`);
  const b = await fields(`${bare}/api/payment-requests/${bareId}/`);
  if (s !== b) throw new Error(`side by side: the detail's fields differ\n service: ${s}\n bare:    ${b}`);
}

async function measure(stage: Stage, opts: SideBySideOptions, lean: { url: string; pool: pg.Pool; bareUrl: string }) {
  const tenants = stage.tenants;
  const first = tenants[0] as BenchTenant;
  const script = leanPgbenchScript(tenants.length, CREATE_BODY);
  // Every tenant's reference sequence is made by the service's first create of the year: one
  // create each through the service before any load (as bench/create.ts does).
  for (const t of tenants) {
    const r = await fetch(`${stage.service.url}/api/payment-requests/`, {
      method: 'POST',
      headers: apiHeaders(t, { 'content-type': 'application/json', 'idempotency-key': `side-warm-${t.id}` }),
      body: CREATE_BODY,
    });
    if (r.status !== 201) throw new Error(`side by side: warm-up create for ${t.id}: ${r.status} ${await r.text()}`);
  }
  // Warm-up (JIT, plans, caches), which also leaves every side requests to read.
  const warm = Math.min(2, opts.seconds);
  for (const url of [stage.service.url, lean.bareUrl]) {
    assertClean(`side warm-up ${url}`, await runLoad(createPlan(url, tenants, warm)));
  }
  await runPgbench({ url: lean.url, scripts: [script], clients: CONNECTIONS, seconds: warm });
  const serviceIds = await idsOf((sql, p) => stage.db.query<{ id: string }>(sql, p), first);
  const bareIds = await idsOf((sql, p) => lean.pool.query<{ id: string }>(sql, p), first);
  await assertSameDetailFields(stage.service.url, lean.bareUrl, first, serviceIds[0] as string, bareIds[0] as string);
  for (const [url, ids] of [
    [stage.service.url, serviceIds],
    [lean.bareUrl, bareIds],
  ] as const) {
    assertClean(`side warm-up detail ${url}`, await runLoad(detailPlan(url, first, ids, warm)));
  }

  const label = `postgres side by side, ${CONNECTIONS} connections`;
  const costed = async (inProcess: boolean, run: () => Promise<Measure & { count: number }>): Promise<Costed> => {
    const db0 = await localPostgresCpuS();
    const cpu0 = process.cpuUsage();
    const m = await run();
    const cpu = process.cpuUsage(cpu0);
    const db1 = await localPostgresCpuS();
    const { count, ...measure } = m;
    return {
      ...measure,
      cpuUs: inProcess ? Math.round((cpu.user + cpu.system) / count) : null,
      databaseUs: db0 === null || db1 === null ? null : Math.round(((db1 - db0) * 1e6) / count),
    };
  };
  const http = (name: string, plan: LoadPlan) =>
    costed(true, async () => {
      const r = assertClean(`${label}: ${name}`, await runLoad(plan));
      return { ...fromLoad(r), count: r.ok };
    });
  const [serviceCreate, bareCreate, pgbench, serviceDetail, bareDetail] = (await bestOf<Costed>(opts.rounds, [
    () => http('service create', createPlan(stage.service.url, tenants, opts.seconds)),
    () => http('bare create', createPlan(lean.bareUrl, tenants, opts.seconds)),
    () =>
      costed(false, async () => {
        const r = await runPgbench({ url: lean.url, scripts: [script], clients: CONNECTIONS, seconds: opts.seconds });
        if (r.transactions === 0) throw new Error(`${label}: pgbench ran no transaction`);
        return { rps: r.tps, ...r.latency, count: r.transactions };
      }),
    () => http('service detail', detailPlan(stage.service.url, first, serviceIds, opts.seconds)),
    () => http('bare detail', detailPlan(lean.bareUrl, first, bareIds, opts.seconds)),
  ])) as [Costed, Costed, Costed, Costed, Costed];
  const results: SideBySideResults = {
    connections: CONNECTIONS,
    tenants: tenants.length,
    create: { service: serviceCreate, bare: bareCreate, pgbench },
    detail: { service: serviceDetail, bare: bareDetail },
    createServiceToBare: serviceCreate.rps / bareCreate.rps,
    detailServiceToBare: serviceDetail.rps / bareDetail.rps,
    createServiceToPgbench: serviceCreate.rps / pgbench.rps,
    createBareToPgbench: bareCreate.rps / pgbench.rps,
  };
  const line = (m: Costed) =>
    `${m.rps.toFixed(0)}/s p50 ${m.p50} ms p99 ${m.p99} ms (${m.cpuUs ?? '-'} µs here, ${m.databaseUs ?? '-'} µs PostgreSQL a request)`;
  opts.log(
    `${label}: create service ${line(serviceCreate)}, bare ${line(bareCreate)}, pgbench ${line(pgbench)}; ` +
      `service/bare ${results.createServiceToBare.toFixed(2)}, service/pgbench ${results.createServiceToPgbench.toFixed(2)}`,
  );
  opts.log(
    `${label}: detail service ${line(serviceDetail)}, bare ${line(bareDetail)}; service/bare ${results.detailServiceToBare.toFixed(2)}`,
  );
  return results;
}

/**
 * Measures the service, the bare route and pgbench side by side. Given an admin URL, makes the
 * service's database (50 tenants) and drops it after; given a stage, measures its service and
 * leaves it open. The bare route's database is made and dropped here either way.
 */
export async function benchSideBySide(target: Stage | string, opts: SideBySideOptions): Promise<SideBySideResults> {
  const own = typeof target === 'string';
  if (!own && target.engine !== 'postgres') throw new Error('side by side: PostgreSQL only');
  const adminUrl = own ? target : undefined;
  const stage = own ? await openStage('postgres', target, 'side', TENANTS) : target;
  try {
    const leanFresh = await freshDatabase('postgres', adminUrl ?? adminUrlOf(stage), 'side_lean');
    try {
      const pool = new pg.Pool({ connectionString: leanFresh.url, max: CONNECTIONS });
      // An idle client that loses its server emits 'error'; without a listener Node would exit.
      pool.on('error', () => {});
      try {
        await prepareLeanDatabase(pool, stage.tenants);
        const bare = await startBareRoute(pool, stage.tenants);
        try {
          return await measure(stage, opts, { url: leanFresh.libpqUrl ?? leanFresh.url, pool, bareUrl: bare.url });
        } finally {
          await bare.close();
        }
      } finally {
        await pool.end();
      }
    } finally {
      await leanFresh.drop();
    }
  } finally {
    if (own) await stage.close();
  }
}

/** The server's maintenance database, from a stage's own database URL. */
function adminUrlOf(stage: Stage): string {
  const u = new URL(stage.fresh.url);
  u.pathname = '/postgres';
  return u.toString();
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: { seconds: { type: 'string', default: '4' }, rounds: { type: 'string', default: '2' } },
  });
  const log = (s: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${s}\n`);
  const results = await benchSideBySide(
    process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    {
      seconds: Number(values.seconds),
      rounds: Number(values.rounds),
      log,
    },
  );
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
}
