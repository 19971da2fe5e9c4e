import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runCommand } from '../../src/cli/index.ts';
import { isDayInRange } from '../../src/domain/index.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { ControlClient, createUser } from './control-client.ts';

/**
 * Dates at the edge, sent to every date field: the back office's filters and exports, the
 * audit, the payouts, the sandbox's report, the API's list and the command line. Each accepts
 * a day from 0100-01-01 to 9999-12-31 that exists, and refuses the rest (400, or the API's
 * 422, or the command's error); none answers 500.
 */
const EDGES = [
  '9999-12-31',
  '9999-12-30',
  '0100-01-01',
  '2000-01-01',
  '2024-02-29',
  '2026-02-29',
  '2026-02-31',
  '0099-12-31',
  '0000-01-01',
  '10000-01-01',
  '+10000-01-01',
  '-0001-01-01',
  '9999-12-32',
  '9999-13-01',
  '2026-1-1',
  '2026-01-01T00:00:00Z',
  '１９９９-01-01',
  'soon',
];
const VALID = new Set(['9999-12-31', '9999-12-30', '0100-01-01', '2000-01-01', '2024-02-29']);

describe(`dates at the edge, every date field (${ENGINE})`, { timeout: 240_000 }, () => {
  let t: TestApp;
  let c: ControlClient;
  let reference = '';

  before(async () => {
    t = await startTestApp();
    await createUser(t, 'boss', t.tenant.tenantId, 'manager');
    reference = (await createRequest(t)).reference;
    c = await new ControlClient(t, '10.11.0.1').signedIn('boss');
  });
  after(() => t.close());

  test('the shared check accepts exactly the documented days', () => {
    for (const d of EDGES) assert.equal(isDayInRange(d), VALID.has(d), d);
  });

  test('back-office filters, exports, audit and payouts: 200 for a day in range, 400 for the rest', async () => {
    const urls = (d: string) => {
      const v = encodeURIComponent(d);
      return [
        ...['created_from', 'created_to', 'checkin_from', 'checkin_to'].map((f) => `/control/requests?${f}=${v}`),
        `/control/requests/export?what=requests&created_from=${v}&created_to=${v}`,
        `/control/requests/export?what=ledger&created_to=${v}`,
        `/control/audit?from=${v}`,
        `/control/audit?to=${v}`,
        `/control/payouts?from=${v}&to=${v}`,
        `/control/payouts/export?to=${v}`,
      ];
    };
    for (const d of EDGES) {
      for (const url of urls(d)) {
        const r = await c.get(url);
        assert.equal(r.statusCode, VALID.has(d) ? 200 : 400, `${url}: ${r.statusCode} ${r.body.slice(0, 300)}`);
      }
    }
    // The whole range, the last day included: a request made today is in it.
    const all = await c.get('/control/requests?created_from=0100-01-01&created_to=9999-12-31');
    assert.ok(all.body.includes(reference), 'the whole range holds today’s request');
    const none = await c.get('/control/requests?created_from=9999-12-31&created_to=9999-12-31');
    assert.ok(!none.body.includes(reference), 'the last day alone holds nothing yet');
  });

  test('the sandbox report and the API list: never a 500', async () => {
    for (const d of EDGES) {
      const report = await t.app.inject({
        method: 'GET',
        url: `/sandbox/reports/jrb?tenant=${t.tenant.tenantId}&date=${encodeURIComponent(d)}`,
        headers: t.tenant.headers,
      });
      assert.equal(report.statusCode, VALID.has(d) ? 200 : 400, `jrb ${d}: ${report.body.slice(0, 200)}`);
      for (const field of ['created_after', 'created_before', 'updated_after']) {
        const r = await t.call({ method: 'GET', url: `/api/payment-requests/?${field}=${encodeURIComponent(d)}` });
        assert.ok([200, 400, 422].includes(r.statusCode), `${field}=${d}: ${r.statusCode} ${r.body.slice(0, 200)}`);
      }
    }
  });

  test('the command line: --from/--to and --date accept the range and refuse the rest in words', async () => {
    const ctx = { config: t.config, db: t.db, repos: t.repos, app: t.app.payreq };
    const tenant = t.tenant.tenantId;
    for (const d of EDGES) {
      const runs = [
        ['export', '--tenant', tenant, '--from=0100-01-01', `--to=${d}`],
        ['export', '--tenant', tenant, `--from=${d}`, '--to=9999-12-31', '--what', 'ledger'],
        ['settlements', 'list', '--tenant', tenant, `--from=${d}`, '--to=9999-12-31'],
        ['job', 'run', 'send_payment_reminders', `--date=${d}`],
      ];
      for (const argv of runs) {
        const r = await runCommand(argv, ctx);
        const ok = VALID.has(d);
        assert.equal(r.exitCode, ok ? 0 : 1, `${argv.join(' ')}: ${r.stderr}`);
        if (!ok) assert.match(r.stderr, /must be a date YYYY-MM-DD from 0100-01-01 to 9999-12-31|must not be before/);
      }
    }
  });
});
