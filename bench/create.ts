import { CREATE_SQL, createParams, type Database } from '../src/db/index.ts';
import { type NewPaymentRequest, yearIn } from '../src/domain/index.ts';
import { driverFloor } from './driver-floor.ts';
import { apiHeaders, type BenchTenant, type Stage, TENANT_ID_PREFIX } from './environment.ts';
import { assertClean, bestOf, type LoadResult, runLoad } from './load.ts';
import { pgbenchScript, runPgbench } from './pgbench.ts';

export const CREATE_BODY = JSON.stringify({
  request_type: 'IMPRINT',
  amount: 150,
  currency: 'EUR',
  guest_email: 'guest-__N__@example.com',
  guest_first_name: 'Jeanne',
  guest_last_name: 'Martin',
  guest_phone: '+33612345678',
  language: 'fr',
  reservation_ref: 'RES-__N__',
  reservation_data: { checkin: '2026-12-24', checkout: '2026-12-27', room_type: 'Double' },
});

export interface Measure {
  rps: number;
  p50: number;
  p99: number;
  mean: number;
}

export interface CreatePoint {
  tenancy: 'many' | 'one';
  tenants: number;
  connections: number;
  service: Measure;
  baseline: Measure;
  floor: Measure & { tool: string };
  serviceToBaseline: number;
  serviceToFloor: number;
  baselineToFloor: number;
}

export interface CreateResults {
  points: CreatePoint[];
  /** One busy tenant's throughput over many tenants', per connection count. */
  oneOverMany: Record<string, number>;
  atSeventyPercent: {
    rate: number;
    connections: number;
    achieved: number;
    p50: number;
    p99: number;
    rounds: { p50: number; p99: number; achieved: number }[];
  };
}

const fromLoad = (r: LoadResult): Measure => ({ rps: r.rps, p50: r.latency.p50, p99: r.latency.p99, mean: r.meanMs });

const SENTINEL_ID = '00000000-0000-4000-8000-00000000beef';
const SENTINEL_REF = 'RES-SENTINEL';
const SENTINEL_EMAIL = 'guest-sentinel@example.com';
const SENTINEL_KEY = 'bench-key-sentinel';

function sampleRequest(): NewPaymentRequest {
  const b = JSON.parse(CREATE_BODY);
  return {
    requestType: 'IMPRINT',
    amountCents: 15000,
    currency: 'EUR',
    guestEmail: SENTINEL_EMAIL,
    guestFirstName: b.guest_first_name,
    guestLastName: b.guest_last_name,
    guestPhone: b.guest_phone,
    language: 'fr',
    reservationRef: SENTINEL_REF,
    reservationData: b.reservation_data,
    checkin: b.reservation_data.checkin,
  };
}

/** The statement and parameters one create of this tenant runs, as the service builds them. */
function createStatement(t: BenchTenant) {
  return createParams(
    SENTINEL_ID,
    t.id,
    sampleRequest(),
    {
      year: yearIn('Europe/Paris', new Date()),
      linkLifetimeDays: 30,
      actor: { source: 'api', actor: `key:${t.key.split('.')[0]}` },
      emailLink: true,
    },
    {
      key: SENTINEL_KEY,
      // What the service stores: a SHA-256 hex fingerprint and the serialised 201 body.
      fingerprint: 'f'.repeat(64),
      template: JSON.stringify({
        uuid: SENTINEL_ID,
        reference: '@@reference-00000000000000000000000000000000@@',
        status: 'NOT_INITIATED',
        payment_link: `http://127.0.0.1:8000/payment/${SENTINEL_ID}/`,
      }),
      placeholder: '@@reference-00000000000000000000000000000000@@',
    },
  );
}

/**
 * Which parameters differ on every create, and how pgbench makes a fresh one. The tenant and
 * its sequence come from the integer `:t`, so one prepared statement serves every tenant, as
 * the service's does (literal tenants would make pgbench prepare and custom-plan 50 statements
 * per connection, and measure planning).
 */
function perRunExpressions(params: readonly unknown[], first: BenchTenant): Map<number, string> {
  const m = new Map<number, string>();
  const digits = first.id.slice(TENANT_ID_PREFIX.length);
  const tenantExpr = `('${TENANT_ID_PREFIX}' || lpad(:t::text, 12, '0'))`;
  params.forEach((v, i) => {
    if (v === first.id) m.set(i, tenantExpr);
    else if (typeof v === 'string' && v.startsWith('ref_') && v.includes(digits)) {
      const [before, after] = v.split(digits) as [string, string];
      m.set(i, `('${before}' || lpad(:t::text, 12, '0') || '${after}')`);
    }
    if (v === SENTINEL_ID) m.set(i, 'gen_random_uuid()');
    else if (v === SENTINEL_REF) m.set(i, "('RES-pgb-' || :r::text)");
    else if (v === SENTINEL_EMAIL) m.set(i, "('guest-' || :r::text || '@example.com')");
    else if (v === SENTINEL_KEY) m.set(i, "('pgb-' || :r::text)");
  });
  return m;
}

async function floorFor(stage: Stage, tenants: BenchTenant[], connections: number, seconds: number) {
  if (stage.engine === 'postgres' && stage.fresh.libpqUrl) {
    const first = tenants[0] as BenchTenant;
    const params = createStatement(first);
    const scripts = [
      `\\set t random(1, ${tenants.length})\n${pgbenchScript(CREATE_SQL, params, perRunExpressions(params, first))}`,
    ];
    const r = await runPgbench({ url: stage.fresh.libpqUrl, scripts, clients: connections, seconds });
    return { rps: r.tps, ...r.latency, tool: 'pgbench' };
  }
  const db: Database = stage.db;
  const r = await driverFloor(
    (i) => {
      const t = tenants[i % tenants.length] as BenchTenant;
      const params = createStatement(t).map((v) =>
        v === SENTINEL_ID
          ? crypto.randomUUID()
          : v === SENTINEL_REF
            ? `RES-floor-${i}`
            : v === SENTINEL_EMAIL
              ? `guest-${i}@example.com`
              : v === SENTINEL_KEY
                ? `floor-${i}-${Math.random()}`
                : v,
      );
      return db.query(CREATE_SQL, params);
    },
    connections,
    seconds,
  );
  return { rps: r.tps, ...r.latency, tool: 'driver loop in process' };
}

function plan(url: string, tenants: BenchTenant[], connections: number, seconds: number, overallRate?: number) {
  return {
    url,
    connections,
    duration: seconds,
    overallRate,
    method: 'POST' as const,
    paths: ['/api/payment-requests/'],
    headers: tenants.map((t) => apiHeaders(t, { 'content-type': 'application/json' })),
    body: CREATE_BODY,
    unique: true,
  };
}

export async function benchCreate(
  stage: Stage,
  opts: { seconds: number; rounds: number; connections: number[]; log: (s: string) => void },
): Promise<CreateResults> {
  const many = stage.tenants;
  const one = stage.tenants.slice(0, 1);
  // Every tenant's reference sequence is made by the service's first create of the year; the
  // baseline makes none, so each tenant gets one create through the service before any load
  // (a timed warm-up spread over 50 tenants could miss one, and the baseline would then fail).
  for (const t of many) {
    const r = await fetch(`${stage.service.url}/api/payment-requests/`, {
      method: 'POST',
      headers: apiHeaders(t, { 'content-type': 'application/json', 'idempotency-key': `warm-${t.id}` }),
      body: CREATE_BODY,
    });
    if (r.status !== 201) throw new Error(`create warm-up for tenant ${t.id}: ${r.status} ${await r.text()}`);
  }
  // Warm up both servers (JIT, plans) before anything is measured.
  for (const url of [stage.service.url, stage.baseline.url]) {
    assertClean(`warm-up ${url}`, await runLoad(plan(url, many, 16, 2)));
  }
  const points: CreatePoint[] = [];
  for (const [tenancy, tenants] of [
    ['many', many],
    ['one', one],
  ] as const) {
    for (const c of opts.connections) {
      const label = `${stage.engine} create, ${tenants.length} tenant(s), ${c} connections`;
      const [service, baseline, floor] = (await bestOf<Measure & { tool?: string }>(opts.rounds, [
        async () => fromLoad(assertClean(label, await runLoad(plan(stage.service.url, tenants, c, opts.seconds)))),
        async () =>
          fromLoad(
            assertClean(`${label} (baseline)`, await runLoad(plan(stage.baseline.url, tenants, c, opts.seconds))),
          ),
        () => floorFor(stage, [...tenants], c, opts.seconds),
      ])) as [Measure, Measure, Measure & { tool: string }];
      const p: CreatePoint = {
        tenancy,
        tenants: tenants.length,
        connections: c,
        service,
        baseline,
        floor,
        serviceToBaseline: service.rps / baseline.rps,
        serviceToFloor: service.rps / floor.rps,
        baselineToFloor: baseline.rps / floor.rps,
      };
      opts.log(
        `${label}: service ${service.rps.toFixed(0)}/s p99 ${service.p99} ms, baseline ${baseline.rps.toFixed(0)}/s, floor ${floor.rps.toFixed(0)}/s (${floor.tool})`,
      );
      points.push(p);
    }
  }
  const oneOverMany: Record<string, number> = {};
  for (const c of opts.connections) {
    const m = points.find((p) => p.tenancy === 'many' && p.connections === c);
    const o = points.find((p) => p.tenancy === 'one' && p.connections === c);
    if (m && o) oneOverMany[c] = o.service.rps / m.service.rps;
  }
  // Latency under a steady load short of saturation, as a PMS fleet sends it.
  const peak = Math.max(...points.filter((p) => p.tenancy === 'many').map((p) => p.service.rps));
  const rate = Math.floor(peak * 0.7);
  const c = 64;
  // Twice as long as a throughput point, and each round kept: a tail is what one slow moment
  // (a checkpoint, a GC) makes, so the report shows every round and judges by the best.
  const runs: { p50: number; p99: number; achieved: number }[] = [];
  for (let r = 0; r < opts.rounds; r++) {
    const steady = assertClean(
      `${stage.engine} create at 70%`,
      await runLoad(plan(stage.service.url, many, c, opts.seconds * 2, rate)),
    );
    runs.push({ p50: steady.latency.p50, p99: steady.latency.p99, achieved: steady.rps });
    opts.log(
      `${stage.engine} create at ${rate}/s (70% of peak): p50 ${steady.latency.p50} ms, p99 ${steady.latency.p99} ms`,
    );
  }
  const best = runs.reduce((a, b) => (b.p99 < a.p99 ? b : a));
  return {
    points,
    oneOverMany,
    atSeventyPercent: { rate, connections: c, ...best, rounds: runs },
  };
}
