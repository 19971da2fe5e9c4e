import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runCommand } from '../../src/cli/index.ts';
import { runDueJobs } from '../../src/jobs/index.ts';
import { runQueuedJobs } from '../helpers/scheduled-runs.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

describe(`analyze_tables: the planner's statistics kept by the service (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  /** Columns of `table` the planner has statistics for (ANALYZE writes them; PGlite never does by itself). */
  const columnsWithStats = async (table: string) =>
    (
      await t.db.query<{ attname: string }>(
        'SELECT attname FROM pg_stats WHERE schemaname = current_schema() AND tablename = $1 ORDER BY attname',
        [table],
      )
    ).rows.map((r) => r.attname);
  const tableCount = async () =>
    (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = current_schema()'))
      .rows[0]?.n;

  test('payreq job run analyze_tables analyzes every table', async () => {
    for (let i = 0; i < 3; i++) await createRequest(t, { reservation_ref: `STATS-${i}` });
    // A few rows stay below any autovacuum threshold: nothing has analyzed them yet.
    assert.deepEqual(await columnsWithStats('payment_requests'), []);

    const r = await runCommand(['job', 'run', 'analyze_tables', '--json'], {
      config: t.config,
      db: t.db,
      repos: t.repos,
    });
    assert.equal(r.exitCode, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { job: string; tables: number; ms: number };
    assert.equal(out.job, 'analyze_tables');
    assert.equal(out.tables, await tableCount());
    const columns = await columnsWithStats('payment_requests');
    assert.ok(columns.includes('status') && columns.includes('tenant_id'), columns.join(', '));
    assert.ok((await columnsWithStats('status_history')).length > 0, 'status_history analyzed too');
  });

  test('the scheduler runs it nightly from its seeded schedule', async () => {
    const schedule = await t.repos.schedules.get('analyze_tables');
    assert.deepEqual([schedule?.cron, schedule?.timezone, schedule?.enabled], ['50 3 * * *', 'Europe/Paris', true]);
    await t.db.query(
      `UPDATE job_schedules SET enabled = (job = 'analyze_tables'), next_run_at = now() - interval '1 minute'`,
    );
    const queued = await runDueJobs(t.app.payreq, new Date());
    assert.deepEqual(
      queued.map((x) => x.job),
      ['analyze_tables'],
    );
    assert.deepEqual(await runQueuedJobs(t.app.payreq, { only: ['analyze_tables'] }), ['ok']);
    const [run] = await t.repos.schedules.runs('analyze_tables', 1);
    assert.deepEqual([run?.outcome, run?.counts?.tables], ['ok', await tableCount()]);
  });
});
