import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { repositories } from '../../src/db/index.ts';
import { assertFails, cliEnv, killAll, parseJson, payreq, scratchDir } from '../cli/payreq-process.ts';
import { sharedDatabases } from '../cli/shared-database.ts';
import { ENGINE } from '../helpers/database.ts';
import { jrb, type Operation } from './jrb-file.ts';

// `payreq settlements import` and `list` as processes, as a hotel's script runs them.
describe(`payreq settlements import and list, as processes (${ENGINE})`, { timeout: 600_000 }, () => {
  const scratch = scratchDir();
  const databases = sharedDatabases(scratch.dir);
  after(async () => {
    killAll();
    await databases.drop();
    scratch.cleanup();
  });

  test('import prints the file’s counts, again the same; list gives decimal amounts; bad input refused', async () => {
    const shared = await databases.create('settlements');
    const env = cliEnv({ DATABASE_URL: shared.url, SECRET_KEY: 's'.repeat(64) });
    const db = await shared.open();
    const repos = repositories(db);
    const hotel = (await repos.tenants.create({ name: 'Hôtel CLI' })).id;
    const order = randomUUID();
    await db.query(
      `INSERT INTO money_ledger (payment_request_id, tenant_id, kind, amount, currency, provider, idempotency_key, state,
         source, legacy_trans_id)
       VALUES ($1, $2, 'payment', 12000, 'EUR', 'lyra', $3, 'succeeded', 'ipn', '482915')`,
      [order, hotel, `event:${randomUUID()}`],
    );
    await db.close();

    const ops: Operation[] = [
      { orderId: order, transactionId: '482915', type: 'DT', amount: 12_000, commission: 193 },
      { orderId: randomUUID(), transactionId: '482916', type: 'DT', amount: 5_000, commission: 95 },
    ];
    const file = path.join(scratch.dir, 'jrb.csv');
    writeFileSync(file, jrb(ops));
    const run = (...args: string[]) => payreq(args, env, scratch.dir);

    const counts = { remittances: 1, lines: 2, matched: 1, unmatched: 1 };
    assert.deepEqual(parseJson(await run('settlements', 'import', '--tenant', hotel, file, '--json')), {
      ...counts,
      changed: 2,
    });
    assert.deepEqual(parseJson(await run('settlements', 'import', '--tenant', hotel, file, '--json')), {
      ...counts,
      changed: 0,
    });
    const text = await run('settlements', 'import', '--tenant', hotel, file);
    assert.equal(text.code, 0, text.stderr);
    assert.equal(text.stdout.trim(), 'nothing new: its 2 lines were imported before');

    const listed = parseJson<{ remittances: Record<string, unknown>[] }>(
      await run('settlements', 'list', '--tenant', hotel, '--from', '2026-11-21', '--to', '2026-11-21', '--json'),
    );
    assert.deepEqual(listed, {
      remittances: [
        {
          remittance_nb: '000042',
          remittance_date: '2026-11-21',
          currency: 'EUR',
          gross: 170,
          fees: 2.88,
          net: 167.12,
          lines: 2,
          matched: 1,
          unmatched: 1,
        },
      ],
    });
    assert.deepEqual(parseJson(await run('settlements', 'list', '--tenant', hotel, '--from', '2026-11-22', '--json')), {
      remittances: [],
    });

    // Another file's first import: its counts, in words whose plurals agree.
    const other = path.join(scratch.dir, 'other.csv');
    writeFileSync(other, jrb(ops.map((o) => ({ ...o, orderId: randomUUID(), remittanceNb: '000043' }))));
    const first = await run('settlements', 'import', '--tenant', hotel, other);
    assert.equal(first.stdout.trim(), '1 remittance, 2 lines: 0 matched, 2 unmatched');

    // A report larger than a control-channel request: read as a stream by the process itself.
    const many: Operation[] = Array.from({ length: 4000 }, (_, i) => ({
      orderId: randomUUID(),
      transactionId: String(100_000 + i),
      type: 'DT',
      amount: 1000 + i,
      commission: 10,
      remittanceNb: '000099',
    }));
    const big = path.join(scratch.dir, 'big.csv');
    writeFileSync(big, jrb(many));
    assert.deepEqual(parseJson(await run('settlements', 'import', '--tenant', hotel, big, '--json')), {
      remittances: 1,
      lines: 4000,
      matched: 0,
      unmatched: 4000,
      changed: 4000,
    });

    const bad = path.join(scratch.dir, 'bad.csv');
    writeFileSync(bad, jrb(ops).toString().replace(';DT;', ';XX;'));
    assertFails(
      await run('settlements', 'import', '--tenant', hotel, bad),
      /the file is refused, nothing was stored: line 3: OPERATION_TYPE "XX"/,
    );
    assertFails(
      await run('settlements', 'import', '--tenant', hotel, path.join(scratch.dir, 'nope.csv')),
      /no such file/,
    );
    assertFails(await run('settlements', 'import', '--tenant', hotel), /missing FILE/);
    assertFails(await run('settlements', 'import', '--tenant', 'nope', file), /--tenant must be a tenant id/);
    assertFails(await run('settlements', 'import', '--tenant', randomUUID(), file), /no tenant with id/);
    assertFails(
      await run('settlements', 'list', '--tenant', hotel, '--from', '2026-11-22', '--to', '2026-11-21'),
      /--to must not be before --from/,
    );
    const help = await run('settlements', 'import', '--help');
    assert.match(help.stdout, /payreq settlements import --tenant ID FILE \[--json\]/);
    const after = parseJson<{ remittances: { lines: number }[] }>(
      await run('settlements', 'list', '--tenant', hotel, '--json'),
    );
    assert.deepEqual(
      after.remittances.map((r) => r.lines),
      [4000, 2, 2],
      'the refused file stored nothing',
    );
  });

  test('payouts is the primary spelling: payouts and settlements import, list and export answer alike', async () => {
    const shared = await databases.create('payouts');
    const env = cliEnv({ DATABASE_URL: shared.url, SECRET_KEY: 's'.repeat(64) });
    const db = await shared.open();
    const repos = repositories(db);
    const hotels = [
      (await repos.tenants.create({ name: 'Hôtel A' })).id,
      (await repos.tenants.create({ name: 'Hôtel B' })).id,
    ];
    const orders = [randomUUID(), randomUUID()];
    for (const [i, hotel] of hotels.entries()) {
      await db.query(
        `INSERT INTO money_ledger (payment_request_id, tenant_id, kind, amount, currency, provider, idempotency_key, state,
           source, legacy_trans_id)
         VALUES ($1, $2, 'payment', 12000, 'EUR', 'lyra', $3, 'succeeded', 'ipn', '482915')`,
        [orders[i], hotel, `event:${randomUUID()}`],
      );
    }
    await db.close();
    const run = (...args: string[]) => payreq(args, env, scratch.dir);
    const files = orders.map((order, i) => {
      const file = path.join(scratch.dir, `jrb-${i}.csv`);
      writeFileSync(
        file,
        jrb([
          { orderId: order, transactionId: '482915', type: 'DT', amount: 12_000, commission: 193 },
          { orderId: randomUUID(), transactionId: '482916', type: 'DT', amount: 5_000, commission: 95 },
        ]),
      );
      return file;
    });
    const fileFor = (i: number) => files[i] as string;
    const [a, b] = hotels as [string, string];
    // The same file's shape for two hotels: one imported by each spelling, the outputs the same.
    const byPayouts = await run('payouts', 'import', '--tenant', a, fileFor(0), '--json');
    const bySettlements = await run('settlements', 'import', '--tenant', b, fileFor(1), '--json');
    assert.deepEqual(parseJson(byPayouts), { remittances: 1, lines: 2, matched: 1, unmatched: 1, changed: 2 });
    assert.deepEqual(parseJson(bySettlements), parseJson(byPayouts));
    const textA = await run('payouts', 'import', '--tenant', a, fileFor(0));
    const textB = await run('settlements', 'import', '--tenant', b, fileFor(1));
    assert.equal(textA.code, 0, textA.stderr);
    assert.equal(textB.stdout, textA.stdout);

    for (const hotel of hotels) {
      const list = await run('payouts', 'list', '--tenant', hotel, '--json');
      const alias = await run('settlements', 'list', '--tenant', hotel, '--json');
      assert.equal(list.code, 0, list.stderr);
      assert.equal(alias.stdout, list.stdout);
      assert.equal(parseJson<{ remittances: unknown[] }>(list).remittances.length, 1);
      const range = ['--tenant', hotel, '--from', '2026-11-01', '--to', '2026-11-30'];
      const exported = await run('export', ...range, '--what', 'payouts', '--format', 'json');
      const exportedAlias = await run('export', ...range, '--what', 'settlements', '--format', 'json');
      assert.equal(exported.code, 0, exported.stderr);
      assert.equal(exportedAlias.stdout, exported.stdout);
      assert.equal((JSON.parse(exported.stdout) as unknown[]).length, 2);
    }
    const help = await run('payouts', 'import', '--help');
    assert.match(help.stdout, /payreq payouts import --tenant ID FILE \[--json\]/);
    const aliasHelp = await run('settlements', 'list', '--help');
    assert.match(aliasHelp.stdout, /payreq settlements list --tenant ID/);
    assert.match((await run('--help')).stdout, /payouts import[\s\S]*settlements import/);
  });
});
