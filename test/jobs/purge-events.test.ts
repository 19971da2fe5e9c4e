import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runCommand } from '../../src/cli/index.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

describe(`purge_events: retention of the event feed and the webhook log (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ env: { WEBHOOKS_ALLOW_PRIVATE: 'on' } });
  });
  after(() => t.close());

  const count = async (sql: string) => (await t.db.query<{ n: number }>(sql)).rows[0]?.n ?? -1;

  test('old events and old delivered log rows go; recent ones and any a delivery waits for stay', async () => {
    const endpoint = await runCommand(
      ['webhook', 'create', '--tenant', t.tenant.tenantId, '--url', 'http://127.0.0.1:9/none', '--json'],
      { config: t.config, db: t.db, repos: t.repos, app: t.app.payreq },
    );
    assert.equal(endpoint.exitCode, 0, endpoint.stderr);
    const old = await createRequest(t, { reservation_ref: 'OLD' });
    const waiting = await createRequest(t, { reservation_ref: 'OLD-WAITING' });
    await createRequest(t, { reservation_ref: 'RECENT' });
    await t.db.query(
      `UPDATE events SET created_at = now() - interval '91 days' WHERE data->>'uuid' = ANY($1::text[])`,
      [[old.uuid, waiting.uuid]],
    );
    await t.db.query(
      `UPDATE webhook_deliveries d SET status = 'delivered', delivered_at = now() - interval '31 days'
        FROM events e WHERE e.id = d.event_id AND e.data->>'uuid' = $1`,
      [old.uuid],
    );
    const r = await runCommand(['job', 'run', 'purge_events', '--json'], {
      config: t.config,
      db: t.db,
      repos: t.repos,
    });
    assert.equal(r.exitCode, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { job: 'purge_events', deliveries: 1, events: 1 });
    const left = await t.db.query<{ ref: string }>("SELECT data->>'reservation_ref' AS ref FROM events ORDER BY id");
    assert.deepEqual(
      left.rows.map((x) => x.ref),
      ['OLD-WAITING', 'RECENT'],
    );
    assert.equal(await count("SELECT count(*)::int AS n FROM status_history WHERE to_status = 'NOT_INITIATED'"), 3);
  });
});
