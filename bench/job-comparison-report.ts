// BENCHMARKS.md's lines for bench/job-comparison.ts: its target and its table.
import type { JobComparisonResult, JobSideFigures } from './job-comparison.ts';

const f0 = (n: number) => Math.round(n).toLocaleString('en-US');
const f2 = (n: number) => n.toFixed(2);

/** The daily job at 100,000 holds at least as fast as the reference's, best round against best round. */
export function jobComparisonVerdict(
  engine: string,
  c: JobComparisonResult,
): { target: string; measured: string; met: boolean } {
  const target = `${engine}: daily job ≥ 1.0 × ${c.label} at 100,000 holds`;
  if ('skipped' in c) return { target, measured: `not measured: ${c.skipped}`, met: false };
  return {
    target,
    measured: `${f2(c.best.ratio)} (${f0(c.best.current)}/s against ${f0(c.best.reference)}/s) over ${f0(c.holds)}`,
    met: c.best.ratio >= 1 && c.holds >= 100_000,
  };
}

export function jobComparisonLines(c: JobComparisonResult): string[] {
  const L = [`### 4b. The daily job beside ${c.label}`, ''];
  if ('skipped' in c) return [...L, `Not measured: ${c.skipped}.`, ''];
  const db = (s: JobSideFigures) => (s.database_us_per_hold === null ? 'n/a' : f0(s.database_us_per_hold));
  L.push(
    `Each side's own \`bench/daily-job-main.ts\` (its schema, its seeding, its \`payreq job run create_deferred_payments\`) ` +
      `over ${f0(c.holds)} due imprints on a fresh database, ${c.ref} (commit ${c.commit.slice(0, 12)}, ${c.commit_date}) ` +
      'first in each round, then this commit. CPU in µs a hold.',
    '',
    `| Round | ${c.ref} /s | This commit /s | This / ${c.ref} | Wall s | Job CPU | PostgreSQL CPU | Peak RSS MB |`,
    '|---|---|---|---|---|---|---|---|',
  );
  for (const r of c.rounds) {
    const pair = (a: string | number, b: string | number) => `${a} / ${b}`;
    L.push(
      `| ${r.round} | ${f0(r.reference.per_second)} | ${f0(r.current.per_second)} | ${f2(r.ratio)} | ` +
        `${pair(r.reference.wall_s.toFixed(1), r.current.wall_s.toFixed(1))} | ` +
        `${pair(f0(r.reference.job_us_per_hold), f0(r.current.job_us_per_hold))} | ` +
        `${pair(db(r.reference), db(r.current))} | ${pair(f0(r.reference.peak_rss_mb), f0(r.current.peak_rss_mb))} |`,
    );
  }
  const cpu = c.cpu_per_hold_us;
  L.push(
    '',
    `Pairs are ${c.ref} / this commit. Best rounds: this commit ${f0(c.best.current)}/s, ${c.ref} ` +
      `${f0(c.best.reference)}/s: ${f2(c.best.ratio)}. Lowest CPU a hold over the rounds, ${c.ref} / this commit: ` +
      `the job ${f0(cpu.reference.job)} / ${f0(cpu.current.job)} µs, PostgreSQL ` +
      `${cpu.reference.database ?? 'n/a'} / ${cpu.current.database ?? 'n/a'} µs.`,
    '',
  );
  return L;
}
