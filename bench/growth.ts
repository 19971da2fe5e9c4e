import { type Database, repositories } from '../src/db/index.ts';
import { analyzeTables } from '../src/jobs/index.ts';
import type { BenchTenant, Stage } from './environment.ts';
import { assertClean, runLoad } from './load.ts';
import { readPlans } from './reads.ts';

/**
 * Requests number `from`..`to`, written by set-based SQL: every tenth belongs to the first
 * tenant (the one measured), the rest are spread over the others. Statuses and creation times
 * vary as in a live table.
 */
export async function seedRequests(db: Database, tenants: BenchTenant[], from: number, to: number): Promise<void> {
  if (tenants.length < 2) throw new Error('seeding needs the measured tenant and at least one other');
  const ids = tenants.map((t) => t.id);
  const CHUNK = 50_000;
  for (let a = from; a <= to; a += CHUNK) {
    const b = Math.min(to, a + CHUNK - 1);
    await db.query(
      `INSERT INTO payment_requests (id, tenant_id, reference, request_type, status, amount, currency, guest_email,
         guest_first_name, guest_last_name, language, reservation_ref, reservation_data, link_expires_at,
         created_at, updated_at)
       SELECT gen_random_uuid(),
              ($3::uuid[])[CASE WHEN g % 10 = 0 THEN 1 ELSE 2 + g % (cardinality($3::uuid[]) - 1) END],
              'IMP-2025-S' || g, 'IMPRINT',
              (ARRAY['NOT_INITIATED', 'PENDING', 'AUTHORISED', 'CAPTURED', 'CANCELLED'])[1 + g % 5],
              15000, 'EUR', 'guest' || g || '@example.com', 'Jeanne', 'Martin', 'fr', 'SEED-' || g,
              '{"room_type": "Double"}'::jsonb, now() + interval '30 days',
              date_trunc('milliseconds', now() - make_interval(secs => g)), now()
         FROM generate_series($1::int, $2::int) g`,
      [a, b, ids],
    );
  }
  // The statistics as the service keeps them: its nightly analyze_tables (on PostgreSQL,
  // autovacuum too; on PGlite nothing else).
  await analyzeTables(repositories(db));
  // A live table gets its rows over months; this one got up to a gigabyte in under a minute,
  // and PostgreSQL's checkpointer was still writing those pages out while the next reads were
  // timed (the list at a million rows: 1.26 and 1.27 times its time at 10,000 in two runs,
  // 0.92 and 1.05 once written out). The growth is the reads', not the seeding's write-back.
  if (db.engine === 'postgres') await db.query('CHECKPOINT');
}

export interface GrowthPoint {
  rows: number;
  tenantRows: number;
  reads: { name: string; meanMs: number; p99: number; rps: number }[];
}

export interface GrowthResults {
  points: GrowthPoint[];
  /** Mean latency with the largest table over the smallest, per read. */
  ratio: Record<string, number>;
}

export async function benchGrowth(
  stage: Stage,
  opts: { sizes: number[]; seconds: number; log: (s: string) => void },
): Promise<GrowthResults> {
  const t = stage.tenants[0] as BenchTenant;
  const points: GrowthPoint[] = [];
  let seeded = 0;
  for (const size of opts.sizes) {
    const started = Date.now();
    await seedRequests(stage.db, stage.tenants, seeded + 1, size);
    seeded = size;
    opts.log(
      `${stage.engine} growth: ${size} requests in the table (seeded in ${((Date.now() - started) / 1000).toFixed(1)} s)`,
    );
    // One connection: the latency of a read alone, not of a queue.
    const plans = (await readPlans(stage, t, 1, opts.seconds)).filter((p) => p.name !== 'guest page');
    const reads: GrowthPoint['reads'] = [];
    for (const { name, plan } of plans) {
      await runLoad({ ...plan, url: stage.service.url, duration: 1 });
      const r = assertClean(`${stage.engine} growth ${name}`, await runLoad({ ...plan, url: stage.service.url }));
      reads.push({ name, meanMs: r.meanMs, p99: r.latency.p99, rps: r.rps });
      opts.log(`  ${name}: mean ${r.meanMs.toFixed(2)} ms, p99 ${r.latency.p99} ms`);
    }
    const tenantRows = (
      await stage.db.query<{ n: number }>('SELECT count(*)::int AS n FROM payment_requests WHERE tenant_id = $1', [
        t.id,
      ])
    ).rows[0]?.n as number;
    points.push({ rows: size, tenantRows, reads });
  }
  const first = points[0];
  const last = points[points.length - 1];
  const ratio: Record<string, number> = {};
  if (first && last) {
    for (const r of last.reads) {
      const f = first.reads.find((x) => x.name === r.name);
      if (f) ratio[r.name] = r.meanMs / f.meanMs;
    }
  }
  return { points, ratio };
}
