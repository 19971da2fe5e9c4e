import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { ControlClient, createUser, withoutLabels } from './control-client.ts';

describe(`back office for superusers: tenants, users, schedules, audit (${ENGINE})`, { timeout: 120_000 }, () => {
  let t: TestApp;
  let root: ControlClient;
  before(async () => {
    t = await startTestApp();
    await createUser(t, 'root');
    root = await new ControlClient(t).signedIn('root');
  });
  after(() => t.close());

  test('a tenant is created with a valid name and zone; a bad zone is refused', async () => {
    await root.get('/control/tenants');
    const bad = await root.post('/control/tenants', { name: 'Nowhere', timezone: 'Mars/Base' });
    assert.equal(bad.statusCode, 422);
    assert.match(bad.body, /must be an IANA time zone/);
    const ok = await root.post('/control/tenants', { name: 'Hôtel Neuf', timezone: 'europe/berlin' });
    assert.equal(ok.statusCode, 303);
    const tenant = (await t.repos.tenants.list()).find((x) => x.name === 'Hôtel Neuf');
    assert.equal(tenant?.timezone, 'Europe/Berlin');
    assert.equal(ok.headers.location, `/control/settings?tenant=${tenant?.id}`);
  });

  test('a user is created for a tenant and can sign in; a short password is refused', async () => {
    await root.get('/control/users');
    const short = await root.post('/control/users', {
      username: 'newdesk',
      password: 'short',
      tenant: t.tenant.tenantId,
    });
    assert.equal(short.statusCode, 422);
    assert.match(short.body, /Password: at least 12 characters\./);
    const ok = await root.post('/control/users', {
      username: 'NewDesk',
      password: 'correct horse battery staple',
      tenant: t.tenant.tenantId,
    });
    assert.equal(ok.statusCode, 303);
    const taken = await root.post('/control/users', {
      username: 'newdesk',
      password: 'another long password',
      tenant: '',
    });
    assert.equal(taken.statusCode, 422);
    assert.match(taken.body, /Username: “newdesk” is taken\./);
    await new ControlClient(t, '10.9.0.1').signedIn('newdesk');
    await root.get('/control/users');
    await root.post('/control/users/newdesk/disable', {});
    assert.equal((await new ControlClient(t, '10.9.0.2').signIn('newdesk')).statusCode, 401);
  });

  test('the user-create form words its refusals in the page language, never the command line English', async () => {
    const french = await new ControlClient(t, '10.9.0.5').signedIn('root');
    await french.get('/control/language/fr');
    await french.get('/control/users');
    const fr = await french.post('/control/users', { username: 'x!', password: 'password1234', tenant: '' });
    assert.equal(fr.statusCode, 422);
    assert.match(fr.body, /Nom d’utilisateur : 1 à 64 caractères/);
    assert.match(fr.body, /Mot de passe : c’est l’un des mots de passe les plus courants/);
    assert.doesNotMatch(fr.body, /must be|easily guessed/);
    await french.get('/control/language/de');
    await french.get('/control/users');
    const de = await french.post('/control/users', { username: 'kurz', password: 'short', tenant: '' });
    assert.equal(de.statusCode, 422);
    assert.match(de.body, /Passwort: mindestens 12 Zeichen\./);
    assert.equal((await t.repos.adminUsers.findByUsername('kurz')) ?? null, null, 'nothing was created');
  });

  test('a schedule change, then "run now": the run is in the history with its counts', async () => {
    const page = await root.get('/control/schedules');
    assert.match(page.body, /create_deferred_payments/);
    const bad = await root.post('/control/schedules/create_deferred_payments', {
      cron: 'every morning',
      timezone: 'Europe/Paris',
      enabled: 'on',
    });
    assert.equal(bad.statusCode, 422);
    const ok = await root.post('/control/schedules/create_deferred_payments', {
      cron: '30 6 * * *',
      timezone: 'Europe/Zurich',
      enabled: 'on',
    });
    assert.equal(ok.statusCode, 303);
    const s = await t.repos.schedules.get('create_deferred_payments');
    assert.deepEqual([s?.cron, s?.timezone, s?.enabled], ['30 6 * * *', 'Europe/Zurich', true]);
    assert.ok(s?.next_run_at, 'the next run is planned');

    await root.get('/control/schedules');
    const run = await root.post('/control/schedules/create_deferred_payments/run', {});
    assert.equal(run.statusCode, 303);
    const after = await root.get('/control/schedules');
    assert.match(after.body, /Done: the run is the first of the recent runs below\./);
    const runs = await t.repos.schedules.runs('create_deferred_payments', 5);
    assert.equal(runs[0]?.outcome, 'ok');
    assert.ok(runs[0]?.counts && 'considered' in runs[0].counts);
    assert.equal((await t.repos.schedules.get('create_deferred_payments'))?.cron, '30 6 * * *', 'schedule untouched');
    assert.equal((await root.post('/control/schedules/no_such_job/run', {})).statusCode, 404);
  });

  test('the audit page names every action in words and filters by action and user', async () => {
    const all = { body: withoutLabels((await root.get('/control/audit')).body) };
    for (const action of [
      'Sign-in',
      'Hotel created',
      'User created',
      'User disabled',
      'Schedule changed',
      'Job run by hand',
    ]) {
      assert.ok(all.body.includes(`<td>${action}</td>`), `audit shows ${action}`);
    }
    assert.doesNotMatch(all.body, /<td>(sign_in|tenant_created|job_run)<\/td>/, 'no code shown for an action');
    const runs = { body: withoutLabels((await root.get('/control/audit?action=job_run')).body) };
    assert.ok(runs.body.includes('<td>Job run by hand</td>') && !runs.body.includes('<td>Hotel created</td>'));
    const byUser = { body: withoutLabels((await root.get('/control/audit?username=newdesk')).body) };
    assert.ok(byUser.body.includes('<td>newdesk</td>') && !byUser.body.includes('<td>root</td>'));
  });

  test('hotel, user and schedule forms the pages cannot send (a field twice, a box not "on"): the page again with its message, nothing changed', async () => {
    await root.get('/control/tenants');
    const hotels = (await t.repos.tenants.list()).length;
    const twiceNamed = await root.post('/control/tenants', { name: ['Twice', 'Twice'], timezone: 'Europe/Paris' });
    assert.equal(twiceNamed.statusCode, 422);
    assert.match(
      twiceNamed.body,
      /<div class="flash error" role="alert"><p>Some values are not valid; nothing was saved\.<\/p>/,
    );
    assert.equal((await t.repos.tenants.list()).length, hotels);

    await root.get('/control/users');
    const people = (await t.repos.adminUsers.roles({ tenantId: t.tenant.tenantId })).length;
    const twiceRole = await root.post('/control/users', {
      username: 'twicerole',
      password: 'correct horse battery staple',
      tenant: t.tenant.tenantId,
      role: ['viewer', 'manager'],
    });
    assert.equal(twiceRole.statusCode, 422);
    assert.match(twiceRole.body, /Some values are not valid; nothing was saved\./);
    assert.equal((await t.repos.adminUsers.roles({ tenantId: t.tenant.tenantId })).length, people);
    // A hotel named twice names none: 404, as a hotel id that is not one.
    const twiceHotel = await root.post('/control/users', {
      username: 'twicehotel',
      password: 'correct horse battery staple',
      tenant: [t.tenant.tenantId, t.tenant.tenantId],
    });
    assert.equal(twiceHotel.statusCode, 404);

    await root.get('/control/schedules');
    const before = await t.repos.schedules.get('purge_events');
    const notOn = await root.post('/control/schedules/purge_events', {
      cron: '15 3 * * *',
      timezone: 'Europe/Paris',
      enabled: 'yes',
    });
    assert.equal(notOn.statusCode, 422);
    assert.match(notOn.body, /Some values are not valid; nothing was saved\./);
    assert.deepEqual(await t.repos.schedules.get('purge_events'), before);
    // An action no page offers on a user: 404, as before.
    assert.equal((await root.post('/control/users/root/promote', {})).statusCode, 404);
  });
});
