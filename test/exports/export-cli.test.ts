import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, describe, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/index.ts';
import { BIN, cliEnv, killAll, payreq, scratchDir } from '../cli/payreq-process.ts';
import { sharedDatabases } from '../cli/shared-database.ts';
import { ENGINE } from '../helpers/database.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { createBody, newTenant } from '../helpers/test-app.ts';
import { csvObjects } from './csv-parse.ts';

const SECRET_KEY = 's'.repeat(64);

// `payreq export` as a process, as an accountant's script runs it: standard output is the file.
describe(`payreq export, as a process (${ENGINE})`, { timeout: 600_000 }, () => {
  const scratch = scratchDir();
  const databases = sharedDatabases(scratch.dir);
  after(async () => {
    killAll();
    await databases.drop();
    scratch.cleanup();
  });

  test('requests over the hotel’s days as CSV, ledger movements as JSON; bad options refused', async () => {
    const shared = await databases.create('small');
    const env = cliEnv({ DATABASE_URL: shared.url, SECRET_KEY });
    const db = await shared.open();
    const app = await buildApp({ config: loadConfig({ ...env, NODE_ENV: 'test' } as NodeJS.ProcessEnv), db });
    const hotel = await newTenant(app.payreq.repos, 'Hôtel Export');
    const create = async (body: Record<string, unknown>) => {
      const r = await app.inject({
        method: 'POST',
        url: '/api/payment-requests/',
        headers: hotel.headers,
        payload: createBody(body),
      });
      assert.equal(r.statusCode, 201, r.body);
      return r.json() as { uuid: string; reference: string };
    };
    const paid = await create({ request_type: 'DEPOSIT', amount: 99.9, guest_last_name: 'Müller, "Hans"' });
    await arrangeStatus(db, paid.uuid, 'CAPTURED', { amountCaptured: 9990 });
    const early = await create({ request_type: 'IMPRINT', amount: 10 });
    const late = await create({ request_type: 'IMPRINT', amount: 20 });
    // 22:59 UTC on 31 October is 23:59 in Paris; 23:00 UTC is already 1 November there.
    await db.query(`UPDATE payment_requests SET created_at = '2026-10-31T22:59:00Z' WHERE id = $1`, [early.uuid]);
    await db.query(`UPDATE payment_requests SET created_at = '2026-10-31T23:00:00Z' WHERE id = $1`, [late.uuid]);
    await db.query(`UPDATE money_ledger SET created_at = '2026-11-15T10:00:00Z' WHERE payment_request_id = $1`, [
      paid.uuid,
    ]);
    await db.query(`UPDATE payment_requests SET created_at = '2026-11-15T09:00:00Z' WHERE id = $1`, [paid.uuid]);
    await app.close();
    // PGlite admits one process per directory: closed before the CLI opens it.
    await db.close();

    const november = await payreq(
      ['export', '--tenant', hotel.tenantId, '--from', '2026-11-01', '--to', '2026-11-30'],
      env,
      scratch.dir,
    );
    assert.equal(november.code, 0, november.stderr);
    assert.ok(november.stdout.startsWith('\uFEFF'), 'the byte-order mark of the back office’s file');
    const rows = csvObjects(november.stdout.slice(1));
    assert.deepEqual(
      rows.map((r) => r.reference),
      [late.reference, paid.reference],
    );
    assert.equal(rows[0]?.created_at, '2026-11-01T00:00:00+01:00');
    assert.deepEqual(
      [rows[1]?.amount, rows[1]?.amount_captured, rows[1]?.guest_last_name],
      ['99.90', '99.90', 'Müller, "Hans"'],
    );

    const ledger = await payreq(
      [
        'export',
        '--tenant',
        hotel.tenantId,
        '--from',
        '2026-11-15',
        '--to',
        '2026-11-15',
        '--what',
        'ledger',
        '--format',
        'json',
      ],
      env,
      scratch.dir,
    );
    assert.equal(ledger.code, 0, ledger.stderr);
    const movements = JSON.parse(ledger.stdout) as Record<string, unknown>[];
    assert.deepEqual(
      movements.map((m) => [m.reference, m.kind, m.amount, m.held, m.net, m.currency, m.at]),
      [[paid.reference, 'payment', 99.9, null, 99.9, 'EUR', '2026-11-15T11:00:00+01:00']],
    );

    // A German spreadsheet's file on demand: `;` between fields, a decimal comma.
    const period = ['--tenant', hotel.tenantId, '--from', '2026-11-15', '--to', '2026-11-15', '--what', 'ledger'];
    const german = await payreq(['export', ...period, '--csv-dialect', 'excel-de'], env, scratch.dir);
    assert.equal(german.code, 0, german.stderr);
    assert.ok(german.stdout.startsWith('\uFEFFmovement_id;at;reference;'), german.stdout.slice(0, 80));
    assert.deepEqual(
      csvObjects(german.stdout.slice(1), ';').map((m) => [m.kind, m.amount, m.held, m.net]),
      [['payment', '99,90', '', '99,90']],
    );
    // By default, the hotel's language's: English (rfc4180) until it is French (excel-fr).
    const english = await payreq(['export', ...period], env, scratch.dir);
    assert.deepEqual(
      csvObjects(english.stdout.slice(1)).map((m) => m.amount),
      ['99.90'],
    );
    const french = await payreq(
      ['tenant', 'update', '--tenant', hotel.tenantId, '--digest-language', 'fr'],
      env,
      scratch.dir,
    );
    assert.equal(french.code, 0, french.stderr);
    const byLanguage = await payreq(['export', ...period], env, scratch.dir);
    assert.deepEqual(
      csvObjects(byLanguage.stdout.slice(1), ';').map((m) => [m.amount, m.net]),
      [['99,90', '99,90']],
    );
    const chosen = await payreq(['export', ...period, '--csv-dialect', 'rfc4180'], env, scratch.dir);
    assert.deepEqual(
      csvObjects(chosen.stdout.slice(1)).map((m) => m.amount),
      ['99.90'],
      'a dialect named wins over the language',
    );

    const empty = await payreq(
      ['export', '--tenant', hotel.tenantId, '--from', '2025-01-01', '--to', '2025-01-31', '--format', 'json'],
      env,
      scratch.dir,
    );
    assert.deepEqual(JSON.parse(empty.stdout), []);

    for (const [args, message] of [
      [['--from', '2026-11-30', '--to', '2026-11-01'], /--to must not be before --from/],
      [['--from', '2026-02-30', '--to', '2026-03-01'], /--from must be a date YYYY-MM-DD/],
      [['--from', '2026-11-01', '--to', '2026-11-30', '--what', 'guests'], /--what must be one of requests, ledger/],
      [['--from', '2026-11-01', '--to', '2026-11-30', '--format', 'xlsx'], /--format must be one of csv, json/],
      [
        ['--from', '2026-11-01', '--to', '2026-11-30', '--csv-dialect', 'excel-us'],
        /--csv-dialect must be one of excel-fr, excel-de, rfc4180/,
      ],
      [
        ['--from', '2026-11-01', '--to', '2026-11-30', '--format', 'json', '--csv-dialect', 'excel-fr'],
        /--csv-dialect is for --format csv only/,
      ],
      [['--from', '2026-11-01'], /--from and --to are required/],
    ] as const) {
      const r = await payreq(['export', '--tenant', hotel.tenantId, ...args], env, scratch.dir);
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.stdout}`);
      assert.match(r.stderr, message);
      assert.equal(r.stdout, '');
    }
  });

  test('a million requests stream through a 64 MB heap', async (t) => {
    if (ENGINE !== 'postgres') {
      // Writing a million rows into embedded PGlite takes minutes of a shared machine; the
      // export's code is the same on both engines, and the test above runs it on PGlite.
      t.skip('a million rows are seeded on PostgreSQL only');
      return;
    }
    const ROWS = 1_000_000;
    const shared = await databases.create('large');
    const db = await shared.open();
    const hotel = await newTenant((await import('../../src/db/index.ts')).repositories(db), 'Grand Hôtel');
    // Set-based, without the triggers (events, history) and the search indexes, in this test's
    // own database: the export reads the requests through their (tenant, created_at) index only,
    // and building a trigram index over a million rows would be most of the test's time.
    await db.query(`DO $$ DECLARE i text; BEGIN
      FOR i IN SELECT indexname FROM pg_indexes WHERE tablename = 'payment_requests' AND indexname NOT IN
        ('payment_requests_pkey', 'payment_requests_tenant_id_reference_key', 'payment_requests_tenant_created')
      LOOP EXECUTE 'DROP INDEX ' || quote_ident(i); END LOOP; END $$`);
    await db.query('SET session_replication_role = replica');
    for (let a = 1; a <= ROWS; a += 250_000) {
      await db.query(
        `INSERT INTO payment_requests (id, tenant_id, reference, request_type, status, amount, currency,
           guest_email, guest_first_name, guest_last_name, language, reservation_ref, link_expires_at, created_at)
         SELECT gen_random_uuid(), $3, 'IMP-2026-' || g, 'IMPRINT', 'AUTHORISED', 15000 + g % 100, 'EUR',
                'guest' || g || '@example.com', 'Jeanne', 'Martin', 'fr', 'RES-' || g, now() + interval '30 days',
                timestamptz '2026-06-01T00:00:00Z' + make_interval(secs => g * 5)
           FROM generate_series($1::int, $2::int) g`,
        [a, Math.min(ROWS, a + 249_999), hotel.tenantId],
      );
    }
    await db.query('SET session_replication_role = origin');
    await db.query('ANALYZE payment_requests');
    await db.close();

    const child = spawn(
      process.execPath,
      [
        '--max-old-space-size=64',
        BIN,
        'export',
        '--tenant',
        hotel.tenantId,
        '--from',
        '2026-01-01',
        '--to',
        '2026-12-31',
      ],
      { env: cliEnv({ DATABASE_URL: shared.url, SECRET_KEY }), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let lines = 0;
    let tail = '';
    let stderr = '';
    let peakKb = 0;
    const status = `/proc/${child.pid}/status`;
    const watch = setInterval(() => {
      try {
        const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(status, 'utf8'));
        if (hwm) peakKb = Math.max(peakKb, Number(hwm[1]));
      } catch {
        // The process has ended.
      }
    }, 200);
    child.stdout.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
      tail = (tail + text).slice(-300);
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearInterval(watch);
    assert.equal(code, 0, stderr);
    assert.equal(lines, ROWS + 1, 'the header and every request');
    assert.match(tail, new RegExp(`IMP-2026-${ROWS},`));
    t.diagnostic(`peak RSS of the export process: ${Math.round(peakKb / 1024)} MB`);
    // The file is over 150 MB: held at once, it would not fit in the 64 MB heap the process had.
    assert.ok(peakKb > 0 && peakKb < 200 * 1024, `peak RSS ${peakKb} kB`);
  });
});
