import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createRequest, ENGINE, newKey, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { ControlClient, createUser } from './control-client.ts';

/** A fixed instant: 07:41 UTC is 08:41 in Paris (CET) and 02:41 in New York (EST). */
const CREATED = new Date('2026-11-25T07:41:00Z');

describe(`back office times: the hotel's zone, labelled (${ENGINE})`, { timeout: 120_000 }, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  async function requestAt(tenantId: string, key: Awaited<ReturnType<typeof newKey>>) {
    const r = await createRequest(t, {}, key);
    await t.db.query('UPDATE payment_requests SET created_at = $2 WHERE id = $1 AND tenant_id = $3', [
      r.uuid,
      CREATED,
      tenantId,
    ]);
    return r;
  }

  test("a hotel's user reads its times in the hotel's zone; a superuser reads each hotel's row in that hotel's zone", async () => {
    const paris = await t.repos.tenants.create({ name: 'Hôtel de Paris', timezone: 'Europe/Paris' });
    const ny = await t.repos.tenants.create({ name: 'NY Inn', timezone: 'America/New_York' });
    const inParis = await requestAt(paris.id, await newKey(t.repos, paris.id));
    const inNy = await requestAt(ny.id, await newKey(t.repos, ny.id));
    await createUser(t, 'paris-desk', paris.id);
    await createUser(t, 'root-times');
    const desk = await new ControlClient(t, '10.7.0.1').signedIn('paris-desk');
    assert.match((await desk.get(`/control/requests/${inParis.uuid}`)).body, /25 Nov 2026, 08:41 CET/);
    assert.match((await desk.get('/control/requests')).body, /25 Nov 2026, 08:41 CET/);

    const root = await new ControlClient(t, '10.7.0.2').signedIn('root-times');
    assert.match((await root.get(`/control/requests/${inNy.uuid}`)).body, /25 Nov 2026, 02:41 GMT-5/);
    assert.match((await root.get(`/control/requests/${inParis.uuid}`)).body, /25 Nov 2026, 08:41 CET/);
    // In French, for the same hotel.
    await root.get('/control/language/fr?back=/control/requests');
    assert.match((await root.get(`/control/requests/${inParis.uuid}`)).body, /25 nov\. 2026, 08:41 UTC\+1/);
  });

  test('the scheduled jobs read in the zone they share: 0 7 * * * in Europe/Paris is 07:00; else all in UTC', async () => {
    await createUser(t, 'root-jobs');
    const root = await new ControlClient(t, '10.7.0.3').signedIn('root-jobs');
    await root.get('/control/schedules');
    const saved = await root.post('/control/schedules/create_deferred_payments', {
      cron: '0 7 * * *',
      timezone: 'Europe/Paris',
      enabled: 'on',
    });
    assert.equal(saved.statusCode, 303);
    const nextRun = (body: string) => /id="job-create_deferred_payments"[\s\S]*?<\/p>/.exec(body)?.[0] ?? '';
    // Jobs in other zones: one zone on the page, UTC, said at its foot.
    await t.db.query("UPDATE job_schedules SET timezone = 'UTC' WHERE job = 'purge_events'");
    const mixed = (await root.get('/control/schedules')).body;
    assert.match(nextRun(mixed), /Next run: [^<·]*, 06:00 UTC/);
    assert.match(mixed, /Times on this page: UTC\./);
    // Every job in Paris: the page reads Paris time.
    await t.db.query("UPDATE job_schedules SET timezone = 'Europe/Paris'");
    const paris = (await root.get('/control/schedules')).body;
    assert.match(nextRun(paris), /Next run: [^<·]*, 07:00 CET/);
    assert.match(paris, /Times on this page: Central European Time \(Europe\/Paris\)\./);
  });

  test('the scheduled jobs read in the hotel’s zone when every hotel is in one, whatever the jobs’ zones', async () => {
    // An install of hotels in one zone (the test app's hotel is in Europe/Paris), jobs in two.
    const one = await startTestApp();
    try {
      assert.deepEqual(await one.repos.tenants.zones(), ['Europe/Paris']);
      await createUser(one, 'root-one-zone');
      const root = await new ControlClient(one, '10.7.0.4').signedIn('root-one-zone');
      await root.get('/control/schedules');
      const saved = await root.post('/control/schedules/create_deferred_payments', {
        cron: '0 7 * * *',
        timezone: 'Europe/Paris',
        enabled: 'on',
      });
      assert.equal(saved.statusCode, 303);
      await one.db.query("UPDATE job_schedules SET timezone = 'UTC' WHERE job = 'purge_events'");
      const body = (await root.get('/control/schedules')).body;
      const nextRun = /id="job-create_deferred_payments"[\s\S]*?<\/p>/.exec(body)?.[0] ?? '';
      assert.match(nextRun, /Next run: [^<·]*, 07:00 CET/);
      assert.match(body, /Times on this page: Central European Time \(Europe\/Paris\)\./);
    } finally {
      await one.close();
    }
  });
});
