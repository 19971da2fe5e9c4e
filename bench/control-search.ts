import type { ControlListFilter } from '../src/db/index.ts';
import type { BenchTenant, Stage } from './environment.ts';
import { seedRequests } from './growth.ts';

/**
 * The back office's request list with a text search, timed at the repository (the query the
 * page runs), as the table grows. Searches: one guest by e-mail (a needle), a reference (both
 * matched by their start), a fragment from inside a reference (no request starts with it: the
 * trigram search after the prefix one), a word every row holds (the list's first page), and
 * no search at all; for one hotel and for a superuser's view of every hotel. The target: under
 * 50 ms at 1,000,000 requests on PostgreSQL.
 */
export interface ControlSearchPoint {
  rows: number;
  searches: { name: string; match?: string; rows: number; meanMs: number; maxMs: number }[];
}

export interface ControlSearchResults {
  points: ControlSearchPoint[];
  /** Mean with the largest table over the smallest, per search. */
  ratio: Record<string, number>;
}

export async function benchControlSearch(
  stage: Stage,
  opts: { sizes: number[]; iterations: number; log: (s: string) => void },
): Promise<ControlSearchResults> {
  const t = stage.tenants[0] as BenchTenant;
  const points: ControlSearchPoint[] = [];
  let seeded = 0;
  for (const size of opts.sizes) {
    await seedRequests(stage.db, stage.tenants, seeded + 1, size);
    seeded = size;
    // Seeded rows: every tenth is the measured tenant's (growth.ts), so 'guest{n}0@' is theirs.
    const needle = `guest${Math.floor(size / 20) * 10}@`;
    const cases: [string, Omit<ControlListFilter, 'limit'>][] = [
      ['tenant, guest e-mail', { tenantId: t.id, text: needle }],
      ['tenant, reference', { tenantId: t.id, text: `imp-2025-s${Math.floor(size / 20) * 10}` }],
      ['tenant, inside a reference', { tenantId: t.id, text: `s${Math.floor(size / 20) * 10}` }],
      ['tenant, common word', { tenantId: t.id, text: 'martin' }],
      ['tenant, no search', { tenantId: t.id }],
      ['all tenants, guest e-mail', { text: needle }],
    ];
    const searches: ControlSearchPoint['searches'] = [];
    for (const [name, filter] of cases) {
      const warm = await stage.repos.controlRequests.list({ ...filter, limit: 51 });
      const times: number[] = [];
      for (let i = 0; i < opts.iterations; i++) {
        const started = performance.now();
        await stage.repos.controlRequests.list({ ...filter, limit: 51 });
        times.push(performance.now() - started);
      }
      const meanMs = times.reduce((a, b) => a + b, 0) / times.length;
      searches.push({ name, match: warm.match, rows: warm.rows.length, meanMs, maxMs: Math.max(...times) });
      opts.log(
        `${stage.engine} control search at ${size}: ${name} (${warm.match ?? 'no text'}, ${warm.rows.length} rows) ${meanMs.toFixed(2)} ms mean, ${Math.max(...times).toFixed(1)} max`,
      );
    }
    points.push({ rows: size, searches });
  }
  const first = points[0];
  const last = points[points.length - 1];
  const ratio: Record<string, number> = {};
  for (const s of last?.searches ?? []) {
    const base = first?.searches.find((x) => x.name === s.name)?.meanMs ?? 0;
    ratio[s.name] = base > 0 ? s.meanMs / base : 0;
  }
  return { points, ratio };
}
