// The daily job benchmark alone, on a database of its own made and dropped here:
//   node bench/daily-job-main.ts --engine postgres --count 100000
//   node bench/daily-job-main.ts --engine pglite --count 100000 --node-arg=--cpu-prof
// PostgreSQL: a new database on BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { benchDailyJob } from './daily-job.ts';

const { values } = parseArgs({
  options: {
    engine: { type: 'string', default: 'postgres' },
    count: { type: 'string', default: '100000' },
    'node-arg': { type: 'string', multiple: true, default: [] },
  },
});
const engine = values.engine;
if (engine !== 'postgres' && engine !== 'pglite')
  throw new Error(`--engine must be postgres or pglite (got ${engine})`);
const count = Number(values.count);
const log = (line: string) => process.stderr.write(`${line}\n`);
const secretKey = randomBytes(32).toString('hex');
const nodeArgs = values['node-arg'];

if (engine === 'pglite') {
  const dir = await mkdtemp(path.join(tmpdir(), 'payreq-bench-job-'));
  try {
    const r = await benchDailyJob({ engine, databaseUrl: `pglite://${dir}`, count, secretKey, log, nodeArgs });
    process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
} else {
  const admin = process.env.BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `payreq_bench_job_${randomBytes(6).toString('hex')}`;
  const onAdmin = async (sql: string) => {
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await onAdmin(`CREATE DATABASE ${name}`);
  try {
    const u = new URL(admin);
    u.pathname = `/${name}`;
    const r = await benchDailyJob({ engine, databaseUrl: u.toString(), count, secretKey, log, nodeArgs });
    process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
  } finally {
    await onAdmin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}
