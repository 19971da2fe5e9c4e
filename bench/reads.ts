import type { Measure } from './create.ts';
import { apiHeaders, type BenchTenant, type Stage } from './environment.ts';
import { assertClean, bestOf, type LoadPlan, type LoadResult, runLoad } from './load.ts';

export interface ReadPoint {
  name: string;
  connections: number;
  service: Measure;
  baseline: Measure;
  serviceToBaseline: number;
}

const fromLoad = (r: LoadResult): Measure => ({ rps: r.rps, p50: r.latency.p50, p99: r.latency.p99, mean: r.meanMs });

/** Reads of one tenant's requests, each path a real one: what a PMS and guests ask for. */
export async function readPlans(stage: Stage, t: BenchTenant, connections: number, seconds: number) {
  const ids = (
    await stage.db.query<{ id: string }>(
      'SELECT id FROM payment_requests WHERE tenant_id = $1 ORDER BY random() LIMIT 500',
      [t.id],
    )
  ).rows.map((r) => r.id);
  const refs = (
    await stage.db.query<{ reservation_ref: string }>(
      'SELECT reservation_ref FROM payment_requests WHERE tenant_id = $1 ORDER BY random() LIMIT 1000',
      [t.id],
    )
  ).rows.map((r) => r.reservation_ref);
  if (ids.length < 100 || refs.length < 100) throw new Error(`tenant has too few requests to read (${ids.length})`);
  const batches: string[] = [];
  for (let i = 0; i + 100 <= refs.length; i += 100) batches.push(refs.slice(i, i + 100).join(','));
  const base = { connections, duration: seconds, method: 'GET' as const, headers: [apiHeaders(t)] };
  const plans: { name: string; plan: Omit<LoadPlan, 'url'> }[] = [
    { name: 'detail', plan: { ...base, paths: ids.map((id) => `/api/payment-requests/${id}/`) } },
    { name: 'list (limit 100)', plan: { ...base, paths: ['/api/payment-requests/?limit=100'] } },
    {
      name: 'batch statuses (100 refs)',
      plan: { ...base, paths: batches.map((b) => `/api/payment-requests/statuses/?refs=${encodeURIComponent(b)}`) },
    },
    {
      name: 'guest page',
      plan: {
        ...base,
        headers: [{ 'x-forwarded-proto': 'https' }],
        paths: ids.slice(0, 200).map((id) => `/payment/${id}/`),
        forwardedFor: true,
      },
    },
  ];
  return plans;
}

export async function benchReads(
  stage: Stage,
  opts: { seconds: number; rounds: number; connections: number; log: (s: string) => void },
): Promise<ReadPoint[]> {
  const t = stage.tenants[0] as BenchTenant;
  const plans = await readPlans(stage, t, opts.connections, opts.seconds);
  const out: ReadPoint[] = [];
  for (const { name, plan } of plans) {
    // Warm-up: JIT, plans, and the guest page's first opening (NOT_INITIATED -> PENDING).
    for (const url of [stage.service.url, stage.baseline.url]) {
      assertClean(`warm-up ${name}`, await runLoad({ ...plan, url, duration: 2 }));
    }
    const label = `${stage.engine} ${name}, ${opts.connections} connections`;
    const [service, baseline] = (await bestOf(opts.rounds, [
      async () => fromLoad(assertClean(label, await runLoad({ ...plan, url: stage.service.url }))),
      async () => fromLoad(assertClean(`${label} (baseline)`, await runLoad({ ...plan, url: stage.baseline.url }))),
    ])) as [Measure, Measure];
    opts.log(
      `${label}: service ${service.rps.toFixed(0)}/s p99 ${service.p99} ms, baseline ${baseline.rps.toFixed(0)}/s`,
    );
    out.push({ name, connections: opts.connections, service, baseline, serviceToBaseline: service.rps / baseline.rps });
  }
  return out;
}
