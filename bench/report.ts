import type { ControlSearchResults } from './control-search.ts';
import type { CreateResults } from './create.ts';
import type { GrowthResults } from './growth.ts';
import type { JobComparisonResult } from './job-comparison.ts';
import { jobComparisonLines, jobComparisonVerdict } from './job-comparison-report.ts';
import type { MachineInfo } from './machine.ts';
import type { ReadPoint } from './reads.ts';
import type { RequestCost } from './request-costs.ts';
import type { SettlementsFigures } from './settlements-import.ts';
import type { SideBySideResults } from './side-by-side.ts';

export interface JobFigures {
  engine: string;
  imprints: number;
  held: number;
  wall_s: number;
  per_second: number;
  peak_rss_mb: number;
  job_cpu_s?: number;
  database_cpu_s?: number | null;
  command: string;
}

/** The CPU a hold cost, in the job's process and in a PostgreSQL server on this host. */
function jobCpu(j: JobFigures): string {
  const perHold = (s: number) => `${f0((s * 1e6) / j.held)} µs a hold`;
  const job = `${(j.job_cpu_s ?? 0).toFixed(1)} s in the job's process (${perHold(j.job_cpu_s ?? 0)})`;
  return typeof j.database_cpu_s === 'number'
    ? `${job}, ${j.database_cpu_s.toFixed(1)} s in PostgreSQL (${perHold(j.database_cpu_s)})`
    : job;
}

export interface EngineResults {
  create?: CreateResults;
  reads?: ReadPoint[];
  growth?: GrowthResults;
  job?: JobFigures;
  /** The daily job beside an older commit's (PostgreSQL). */
  jobVsReference?: JobComparisonResult;
  controlSearch?: ControlSearchResults;
  costs?: RequestCost[];
  settlements?: SettlementsFigures;
  side?: SideBySideResults;
}

export interface BenchResults {
  machine: MachineInfo;
  settings: { seconds: number; rounds: number; quick: boolean };
  engines: Record<string, EngineResults>;
}

const f0 = (n: number) => Math.round(n).toLocaleString('en-US');
const f2 = (n: number) => n.toFixed(2);
const ms = (n: number) => (n === 0 ? '<1' : Number.isInteger(n) ? `${n}` : n.toFixed(2));

interface Verdict {
  target: string;
  measured: string;
  met: boolean;
}

/** Each target the service is held to, beside what this run measured. */
export function verdicts(r: BenchResults): Verdict[] {
  const out: Verdict[] = [];
  for (const [engine, e] of Object.entries(r.engines)) {
    if (e.create) {
      // On PostgreSQL the service must run ahead of a bare route at 16 connections; on PGlite,
      // whose one thread runs every statement in turn, at 0.8 of it.
      const at16 = e.create.points.filter((p) => p.connections === 16);
      const worst = Math.min(...(engine === 'postgres' ? at16 : e.create.points).map((p) => p.serviceToBaseline));
      const want = engine === 'postgres' ? 1.2 : 0.8;
      out.push({
        target: `${engine}: create ≥ ${want} × bare baseline${engine === 'postgres' ? ' at 16 connections' : ''}`,
        measured: `lowest ${f2(worst)}`,
        met: worst >= want,
      });
      const one = Math.min(...Object.values(e.create.oneOverMany));
      out.push({
        target: `${engine}: one busy tenant ≥ 0.8 × many tenants`,
        measured: `lowest ${f2(one)}`,
        met: one >= 0.8,
      });
      const s = e.create.atSeventyPercent;
      const p99 = engine === 'postgres' ? 15 : 25;
      out.push({
        target: `${engine}: create p99 < ${p99} ms at 70% of peak`,
        measured: `${s.p99} ms at ${f0(s.rate)}/s`,
        met: s.p99 < p99,
      });
      if (engine === 'pglite') {
        const best = Math.max(...e.create.points.map((p) => p.service.rps));
        out.push({ target: 'pglite: create ≥ 1,000 per second', measured: `${f0(best)}/s`, met: best >= 1000 });
      }
    }
    if (e.reads) {
      const worst = Math.min(...e.reads.map((p) => p.serviceToBaseline));
      out.push({
        target: `${engine}: reads ≥ 0.6 × bare baseline`,
        measured: `lowest ${f2(worst)}`,
        met: worst >= 0.6,
      });
    }
    if (e.side) {
      // Issue 51: the service against a plain implementation of the same API, not its own SQL.
      const s = e.side;
      out.push({
        target: `${engine}: create ≥ 1.0 × the bare route (five round trips, lean tables) at ${s.connections} connections`,
        measured: f2(s.createServiceToBare),
        met: s.createServiceToBare >= 1,
      });
      out.push({
        target: `${engine}: detail ≥ 1.0 × the bare route`,
        measured: f2(s.detailServiceToBare),
        met: s.detailServiceToBare >= 1,
      });
    }
    if (e.growth && Object.keys(e.growth.ratio).length > 0) {
      const first = e.growth.points[0]?.rows ?? 0;
      const last = e.growth.points[e.growth.points.length - 1]?.rows ?? 0;
      const full = last >= 1_000_000;
      // The list's page must stay flat (1.2); every read within 1.5.
      const list = Object.entries(e.growth.ratio).find(([n]) => n.startsWith('list'))?.[1];
      if (list !== undefined) {
        out.push({
          target: `${engine}: list growth ${f0(last)}/${f0(first)} ≤ 1.2`,
          measured: f2(list),
          met: list <= 1.2 && full,
        });
      }
      const worst = Math.max(...Object.values(e.growth.ratio));
      out.push({
        target: `${engine}: every read's growth ${f0(last)}/${f0(first)} ≤ 1.5`,
        measured: `highest ${f2(worst)}`,
        met: worst <= 1.5 && full,
      });
    }
    if (e.controlSearch && engine === 'postgres') {
      const last = e.controlSearch.points[e.controlSearch.points.length - 1];
      if (last) {
        const worst = last.searches.reduce((a, b) => (b.meanMs > a.meanMs ? b : a));
        out.push({
          target: `${engine}: back-office search < 50 ms at ${f0(last.rows)} requests`,
          measured: `slowest ${worst.name}: ${f2(worst.meanMs)} ms`,
          met: last.rows >= 1_000_000 && worst.meanMs < 50,
        });
      }
    }
    if (e.job) {
      const rate = engine === 'postgres' ? 5000 : 2500;
      out.push({
        target: `${engine}: daily job ≥ ${f0(rate)} holds/s over 100,000 imprints`,
        measured: `${f0(e.job.per_second)}/s over ${f0(e.job.imprints)}`,
        met: e.job.per_second >= rate && e.job.imprints >= 100_000,
      });
      out.push({
        target: `${engine}: daily job peak RSS < 200 MB`,
        measured: `${f0(e.job.peak_rss_mb)} MB`,
        met: e.job.peak_rss_mb < 200,
      });
    }
    if (e.jobVsReference) out.push(jobComparisonVerdict(engine, e.jobVsReference));
    if (e.settlements) {
      const s = e.settlements;
      out.push({
        target: `${engine}: payreq settlements import of 100,000 lines in under 20 s`,
        measured: `${s.first.wall_s.toFixed(1)} s for ${f0(s.first.lines)} lines`,
        met: s.first.wall_s < 20 && s.first.lines >= 100_000,
      });
      out.push({
        target: `${engine}: the import of 100,000 lines runs in a 64 MB JavaScript heap (bounded memory)`,
        measured: `done; peak RSS ${f0(s.small.peak_rss_mb)} MB for 1,000 lines, ${f0(s.first.peak_rss_mb)} MB for ${f0(s.first.lines)}`,
        met: s.first.lines >= 100_000,
      });
    }
  }
  return out;
}

export function renderMarkdown(r: BenchResults, notes: string): string {
  const m = r.machine;
  const L: string[] = [];
  L.push('# Benchmarks', '');
  L.push(
    `Written by \`${m.command}\` on ${m.date.slice(0, 16).replace('T', ' ')} UTC, commit ${m.commit}. ` +
      'Every figure below was measured in this one run; each ratio compares two measurements taken one after the other ' +
      'on the same machine, so it holds better than the absolute numbers on a shared machine. The raw figures are in ' +
      '`BENCHMARKS.json`.',
    '',
  );
  L.push('## Machine', '');
  L.push(
    `- ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB, ${m.os}; load average at start ${m.loadAverageAtStart.join(' ')}`,
    `- Memory copy: ${m.memoryCopyGBs ?? '?'} GB/s (the best of five copies of 256 MiB in this process)`,
  );
  if (m.postgresCommit)
    L.push(
      `- PostgreSQL, one client: a round trip ${m.postgresCommit.roundTripMs} ms, a commit flushed to disk ` +
        `${m.postgresCommit.commitMs} ms (means of 500). cece624's daily job leaves the cores idle while its two ` +
        "lanes wait on their round trips and commits; today's keeps them busy: faster commits favour cece624's.",
    );
  L.push(`- Node ${m.node}; ${m.postgres}; ${m.pgbench}`);
  L.push(
    `- ${Object.entries(m.versions)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
  L.push(
    `- Load: autocannon in its own process, ${r.settings.seconds} s per measurement after a warm-up, the best of ${r.settings.rounds} interleaved rounds (service, baseline, floor, then again); the service runs as in production ` +
      '(NODE_ENV=production, behind a proxy that terminates TLS, rate limits on with the create limit raised, request logs off).',
    '',
  );

  L.push('## Targets', '', '| Target | Measured | Met |', '|---|---|---|');
  for (const v of verdicts(r)) L.push(`| ${v.target} | ${v.measured} | ${v.met ? 'yes' : '**no**'} |`);
  L.push('');

  const costs = Object.entries(r.engines).filter(([, e]) => e.costs);
  if (costs.length > 0) {
    L.push('## What each request does', '');
    L.push(
      'Counted, not timed: the statements the service sends (BEGIN and COMMIT apart), its round trips to the ' +
        'database (all of them: on PostgreSQL each one waits on the network), its explicit transactions (a statement alone commits by itself), and the rows ' +
        'it leaves written (inserted or updated, by the triggers too). Means over the samples, after a warm-up. ' +
        "The sandbox provider shares the database; its statements stand for a remote provider's call and are counted apart. " +
        'The second table of each engine times the same operations: the CPU of the process the app runs in (the request sent in-process, ' +
        "no socket; for capture, refund and the job the sandbox's code too) and, on PostgreSQL, from pg_stat_statements on a server of the bench's " +
        "own: the statements' execution time (their triggers included; the commit's flush is not), the part spent in statements of " +
        "triggers' functions, WAL written (a row or an index entry is a record) and buffers touched, per operation.",
      '',
    );
    for (const [engine, e] of costs) {
      L.push(`### ${engine === 'postgres' ? 'PostgreSQL' : 'Embedded PGlite'}`, '');
      L.push(
        '| Request | Samples | Statements | Round trips | BEGIN…COMMIT blocks | Rows written | Rows by table | Sandbox round trips / rows |',
        '|---|---|---|---|---|---|---|---|',
      );
      for (const c of e.costs ?? []) {
        const tables = Object.entries(c.byTable)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([t, v]) => `${t} ${v}`)
          .join(', ');
        L.push(
          `| ${c.operation} | ${c.samples} | ${c.statements} | ${c.roundTrips} | ${c.transactions} | ${c.rowsWritten} | ${tables} | ${c.sandbox.roundTrips} / ${c.sandbox.rowsWritten} |`,
        );
      }
      L.push('');
      L.push(...operationCosts(e.costs ?? []));
    }
  }

  for (const [engine, e] of Object.entries(r.engines)) {
    L.push(`## ${engine === 'postgres' ? 'PostgreSQL' : 'Embedded PGlite'}`, '');
    if (e.create) {
      L.push('### 1. Create (POST with a key, validation, Idempotency-Key, rate limit)', '');
      L.push(
        '| Tenants | Connections | Service /s | p50 ms | p99 ms | Bare baseline /s | SQL floor /s | Service / baseline | Service / floor | Baseline / floor |',
        '|---|---|---|---|---|---|---|---|---|---|',
      );
      for (const p of e.create.points) {
        L.push(
          `| ${p.tenancy === 'one' ? 'one busy tenant' : `${p.tenants} tenants`} | ${p.connections} | ${f0(p.service.rps)} | ${ms(p.service.p50)} | ${ms(p.service.p99)} | ${f0(p.baseline.rps)} | ${f0(p.floor.rps)} (${p.floor.tool}) | ${f2(p.serviceToBaseline)} | ${f2(p.serviceToFloor)} | ${f2(p.baselineToFloor)} |`,
        );
      }
      L.push('');
      L.push(
        `One busy tenant over many tenants: ${Object.entries(e.create.oneOverMany)
          .map(([c, v]) => `${f2(v)} at ${c} connections`)
          .join(', ')}.`,
      );
      const s = e.create.atSeventyPercent;
      L.push(
        `At 70% of the peak (${f0(s.rate)}/s asked at evenly spaced instants, ${f0(s.achieved)}/s served, up to ${s.connections} connections): p50 ${s.p50} ms, p99 ${s.p99} ms` +
          (s.rounds.length > 1
            ? ` (best round; every round's p99: ${s.rounds.map((x) => `${x.p99} ms`).join(', ')}).`
            : '.'),
        '',
      );
    }
    if (e.reads) {
      L.push('### 2. Reads', '');
      L.push(
        '| Read | Connections | Service /s | p50 ms | p99 ms | Bare baseline /s | Service / baseline |',
        '|---|---|---|---|---|---|---|',
      );
      for (const p of e.reads) {
        L.push(
          `| ${p.name} | ${p.connections} | ${f0(p.service.rps)} | ${ms(p.service.p50)} | ${ms(p.service.p99)} | ${f0(p.baseline.rps)} | ${f2(p.serviceToBaseline)} |`,
        );
      }
      L.push('');
    }
    if (e.side) {
      const s = e.side;
      L.push(
        `### Side by side: a bare Fastify + pg route (five round trips, lean tables) and pgbench, ${s.connections} connections`,
        '',
      );
      L.push(
        '| Request | Side | /s | p50 ms | p99 ms | Service / side | CPU in Node µs a request | CPU in PostgreSQL µs a request |',
        '|---|---|---|---|---|---|---|---|',
      );
      const cpu = (v: number | null | undefined) => (v === null || v === undefined ? '' : f0(v));
      const row = (request: string, side: string, m: SideBySideResults['detail']['bare'], ratio: string) =>
        L.push(
          `| ${request} | ${side} | ${f0(m.rps)} | ${ms(m.p50)} | ${ms(m.p99)} | ${ratio} | ${cpu(m.cpuUs)} | ${cpu(m.databaseUs)} |`,
        );
      row('create', 'service', s.create.service, '');
      row('create', 'bare route', s.create.bare, f2(s.createServiceToBare));
      row('create', "pgbench, the bare route's statements", s.create.pgbench, f2(s.createServiceToPgbench));
      row('detail', 'service', s.detail.service, '');
      row('detail', 'bare route', s.detail.bare, f2(s.detailServiceToBare));
      L.push('', `Bare route over pgbench, create: ${f2(s.createBareToPgbench)}.`, '');
    }
    if (e.growth) {
      L.push('### 3. Growth (one connection; mean latency from throughput, p99 from the histogram)', '');
      const names = e.growth.points[0]?.reads.map((x) => x.name) ?? [];
      L.push(`| Requests in the table | Measured tenant's | ${names.map((n) => `${n} mean / p99 ms`).join(' | ')} |`);
      L.push(`|---|---|${names.map(() => '---').join('|')}|`);
      for (const p of e.growth.points) {
        L.push(
          `| ${f0(p.rows)} | ${f0(p.tenantRows)} | ${p.reads.map((x) => `${x.meanMs.toFixed(2)} / ${ms(x.p99)}`).join(' | ')} |`,
        );
      }
      L.push('');
      L.push(
        `Largest over smallest table, mean latency: ${Object.entries(e.growth.ratio)
          .map(([n, v]) => `${n} ${f2(v)}`)
          .join(', ')}.`,
        '',
      );
    }
    if (e.controlSearch) {
      L.push('### 5. Back-office request list with a text search (timed at the repository, as the page calls it)', '');
      const names = e.controlSearch.points[0]?.searches.map((x) => x.name) ?? [];
      L.push(`| Requests in the table | ${names.map((n) => `${n} mean / max ms`).join(' | ')} |`);
      L.push(`|---|${names.map(() => '---').join('|')}|`);
      for (const p of e.controlSearch.points) {
        L.push(`| ${f0(p.rows)} | ${p.searches.map((x) => `${f2(x.meanMs)} / ${x.maxMs.toFixed(1)}`).join(' | ')} |`);
      }
      L.push('');
      const last = e.controlSearch.points[e.controlSearch.points.length - 1];
      L.push(
        `Matched as: ${(last?.searches ?? []).map((x) => `${x.name} ${x.match ?? 'no text'} (${x.rows} rows)`).join(', ')}. ` +
          `Largest over smallest table, mean latency: ${Object.entries(e.controlSearch.ratio)
            .map(([n, v]) => `${n} ${f2(v)}`)
            .join(', ')}.`,
        '',
      );
    }
    if (e.job) {
      const j = e.job;
      L.push('### 4. The daily job', '');
      L.push(
        `\`${j.command}\` over ${f0(j.imprints)} due imprints against the sandbox provider: ${f0(j.held)} held in ${j.wall_s.toFixed(1)} s, ` +
          `${f0(j.per_second)} imprints per second, peak RSS ${f0(j.peak_rss_mb)} MB.` +
          (j.job_cpu_s === undefined ? '' : ` CPU: ${jobCpu(j)}.`),
        '',
      );
    }
    if (e.jobVsReference) L.push(...jobComparisonLines(e.jobVsReference));
    if (e.settlements) {
      const s = e.settlements;
      L.push('### 6. Importing a remittance report', '');
      L.push(
        `\`${s.command}\`, each run a process of its own reading the file from disk as it goes: a bank reconciliation ` +
          `report of ${f0(s.first.lines)} lines (${s.file_mb.toFixed(1)} MB, Lyra's V2 layout, ${f0(s.first.matched)} matched) in ` +
          `${s.first.wall_s.toFixed(1)} s (${s.first.cpu_s.toFixed(1)} CPU-s in the command), peak RSS ${f0(s.first.peak_rss_mb)} MB; ` +
          `the same file again ${s.again.wall_s.toFixed(1)} s (it adds nothing); a report of ${f0(s.small.lines)} lines ` +
          `${s.small.wall_s.toFixed(1)} s, peak RSS ${f0(s.small.peak_rss_mb)} MB.`,
        '',
      );
    }
  }
  L.push(notes.trim(), '');
  return L.join('\n');
}

/**
 * What each operation costs, timed: this process's CPU, and on PostgreSQL its statements'
 * execution time, WAL and buffers from pg_stat_statements, with the dearest statements.
 */
function operationCosts(costs: readonly RequestCost[]): string[] {
  if (costs.length === 0) return [];
  const L: string[] = [];
  const withDb = costs.some((c) => c.database);
  L.push(
    withDb
      ? '| Operation | CPU here µs | PostgreSQL µs | of which in triggers µs | Planning µs | WAL bytes | WAL records | Buffers | Sandbox µs | Dearest statements (µs, WAL bytes, WAL records) |'
      : '| Operation | CPU here µs (the database included) |',
    withDb ? '|---|---|---|---|---|---|---|---|---|---|' : '|---|---|',
  );
  for (const c of costs) {
    const d = c.database;
    if (!withDb || !d) {
      L.push(`| ${c.operation} | ${c.serviceCpuUs} |${withDb ? ' | | | | | | | |' : ''}`);
      continue;
    }
    const top = d.top
      .map((t) => `${t.toplevel ? '' : '(trigger) '}${t.statement}: ${t.us}, ${t.walBytes}, ${t.walRecords}`)
      .join('; ');
    L.push(
      `| ${c.operation} | ${c.serviceCpuUs} | ${d.execUs} | ${d.triggerStatementsUs} | ${d.planUs} | ${d.walBytes} | ${d.walRecords} | ${d.buffers} | ${d.sandboxUs} | ${top} |`,
    );
  }
  L.push('');
  return L;
}
