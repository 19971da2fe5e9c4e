// `npm run bench`: measures the service beside its references in one run and writes
// BENCHMARKS.md and BENCHMARKS.json. Options: --quick (short runs, smaller growth and job),
// --engine postgres|pglite (repeatable), --only create,reads,growth,job,control,costs,settlements,side,jobvs,
// --out DIR.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { benchControlSearch } from './control-search.ts';
import { benchCreate } from './create.ts';
import { benchDailyJob } from './daily-job.ts';
import { type Engine, freshDatabase, openStage, SECRET_KEY } from './environment.ts';
import { benchGrowth, seedRequests } from './growth.ts';
import { compareDailyJob } from './job-comparison.ts';
import { commitTimes, machineInfo } from './machine.ts';
import { benchReads } from './reads.ts';
import { type BenchResults, renderMarkdown, verdicts } from './report.ts';
import { benchRequestCosts } from './request-costs.ts';
import { benchSettlementsImport } from './settlements-import.ts';
import { benchSideBySide } from './side-by-side.ts';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    engine: { type: 'string', multiple: true },
    only: { type: 'string' },
    out: { type: 'string', default: '.' },
  },
});

const ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const engines = (values.engine ?? ['postgres', 'pglite']) as Engine[];
const sections = new Set((values.only ?? 'costs,create,reads,growth,job,control,settlements,side,jobvs').split(','));
const quick = values.quick ?? false;
// Made before the run, not after it: a folder that cannot be made fails now, not at the end
// of a run of half an hour whose figures would then be lost.
const out = values.out ?? '.';
mkdirSync(out, { recursive: true });
const seconds = quick ? 2 : 4;
const rounds = quick ? 1 : 2;
const log = (s: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${s}\n`);

async function postgresVersion(): Promise<string> {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    const r = await c.query<{ v: string }>("SELECT split_part(version(), ' on ', 1) AS v");
    return r.rows[0]?.v ?? 'unknown';
  } finally {
    await c.end();
  }
}

const results: BenchResults = {
  machine: machineInfo(await postgresVersion(), await commitTimes(ADMIN_URL)),
  settings: { seconds, rounds, quick },
  engines: {},
};
const started = Date.now();

for (const engine of engines) {
  const e: BenchResults['engines'][string] = {};
  results.engines[engine] = e;
  if (sections.has('costs')) e.costs = await benchRequestCosts(engine, ADMIN_URL, log);
  if (sections.has('create') || sections.has('reads')) {
    const stage = await openStage(engine, ADMIN_URL, 'api', 50);
    try {
      if (sections.has('create')) e.create = await benchCreate(stage, { seconds, rounds, connections: [16, 64], log });
      if (sections.has('reads')) {
        // The measured tenant's table: what the creates left, and a history of 20,000 more.
        await seedRequests(stage.db, stage.tenants, 1, 20_000);
        e.reads = await benchReads(stage, { seconds, rounds, connections: 16, log });
      }
    } finally {
      await stage.close();
    }
  }
  if (sections.has('side')) {
    // The service beside a bare Fastify + pg route and pgbench: both of those need a server.
    if (engine === 'postgres') e.side = await benchSideBySide(ADMIN_URL, { seconds, rounds, log });
    else log(`${engine} side by side: skipped, it compares with a bare route and pgbench on a PostgreSQL server`);
  }
  if (sections.has('growth')) {
    const stage = await openStage(engine, ADMIN_URL, 'growth', 100);
    try {
      const sizes = quick ? [10_000, 100_000] : [10_000, 100_000, 1_000_000];
      e.growth = await benchGrowth(stage, { sizes, seconds: quick ? 2 : 3, log });
    } finally {
      await stage.close();
    }
  }
  if (sections.has('control')) {
    // The back office's list with a text search, 10k -> 1M requests (the trigram index).
    const stage = await openStage(engine, ADMIN_URL, 'control', 20);
    try {
      const sizes = quick ? [10_000, 100_000] : [10_000, 100_000, 1_000_000];
      e.controlSearch = await benchControlSearch(stage, { sizes, iterations: quick ? 20 : 50, log });
    } finally {
      await stage.close();
    }
  }
  if (sections.has('job')) {
    const fresh = await freshDatabase(engine, ADMIN_URL, 'job');
    try {
      const count = quick ? 10_000 : 100_000;
      log(`${engine} daily job: seeding ${count} due imprints`);
      e.job = await benchDailyJob({ engine, databaseUrl: fresh.url, count, secretKey: SECRET_KEY, log });
      log(`${engine} daily job: ${Math.round(e.job.per_second)}/s, peak RSS ${Math.round(e.job.peak_rss_mb)} MB`);
    } finally {
      await fresh.drop();
    }
  }
  if (sections.has('jobvs') && engine === 'postgres') {
    // The daily job beside the code before the ledger (cece624), alternated round by round.
    const count = quick ? 10_000 : 100_000;
    e.jobVsReference = await compareDailyJob({ count, rounds: quick ? 1 : 2, adminUrl: ADMIN_URL, log });
  }
  if (sections.has('settlements')) {
    // A remittance report of 100,000 lines imported, streamed from disk (10,000 with --quick).
    e.settlements = await benchSettlementsImport(engine, ADMIN_URL, quick ? 10_000 : 100_000, log);
  }
}

const notes = readFileSync(new URL('./notes.md', import.meta.url), 'utf8');
writeFileSync(path.join(out, 'BENCHMARKS.json'), `${JSON.stringify(results, null, 2)}\n`);
writeFileSync(path.join(out, 'BENCHMARKS.md'), renderMarkdown(results, notes));
for (const v of verdicts(results)) log(`${v.met ? 'met   ' : 'MISSED'} ${v.target}: ${v.measured}`);
log(`wrote ${path.join(out, 'BENCHMARKS.md')} and BENCHMARKS.json in ${Math.round((Date.now() - started) / 1000)} s`);
