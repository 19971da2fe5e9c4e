import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { runCommand } from '../../src/cli/index.ts';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { addDays, localDate } from '../../src/domain/index.ts';
import { importJrb, remittancesRepository } from '../../src/payouts/index.ts';
import { csvObjects } from '../exports/csv-parse.ts';
import { createRequest, ENGINE, startTestApp, type TenantWithKey, type TestApp } from '../helpers/test-app.ts';
import { jrb } from './jrb-file.ts';

const DAY = 24 * 3600 * 1000;

describe('SETTLEMENT_DELAY_DAYS', () => {
  test('3 days by default; 1 to 60', () => {
    assert.equal(loadConfig({}).settlementDelayDays, 3);
    assert.equal(loadConfig({ SETTLEMENT_DELAY_DAYS: '7' }).settlementDelayDays, 7);
    for (const bad of ['0', '61', 'three', '2.5']) {
      assert.throws(
        () => loadConfig({ SETTLEMENT_DELAY_DAYS: bad }),
        (err: unknown) =>
          err instanceof ConfigError && /^SETTLEMENT_DELAY_DAYS must be a whole number from 1 to 60/.test(err.message),
      );
    }
  });
});

// Money payreq moved that no imported remittance holds, past the delay: from the hotel's first
// remittance on, its payments, captures and refunds older than SETTLEMENT_DELAY_DAYS.
describe(`money never paid out, and the settlements export (${ENGINE})`, () => {
  let t: TestApp;
  let hotel: TenantWithKey;
  const now = Date.now();
  const ago = (days: number) => new Date(now - days * DAY);
  const movement = async (
    tenant: TenantWithKey,
    kind: string,
    amount: number,
    at: Date,
    number: string | null,
    request?: string,
  ) => {
    const id = request ?? (await createRequest(t, { request_type: 'DEPOSIT', amount: amount / 100 }, tenant)).uuid;
    const r = await t.db.query<{ id: string }>(
      `INSERT INTO money_ledger (payment_request_id, tenant_id, kind, amount, currency, provider, idempotency_key, state,
         source, legacy_trans_id, created_at)
       VALUES ($1, $2, $3, $4, 'EUR', 'sandbox', $5, 'succeeded', 'job', $6, $7) RETURNING id::text`,
      [id, tenant.tenantId, kind, amount, `test:${randomUUID()}`, number, at],
    );
    return { request: id, ledger: (r.rows[0] as { id: string }).id };
  };
  before(async () => {
    t = await startTestApp();
    hotel = t.tenant;
  });
  after(async () => {
    await t.close();
  });

  test('nothing before a first remittance; then what no remittance holds, older than the delay', async () => {
    const remitted = await movement(hotel, 'payment', 12_000, ago(10), '100001');
    const lowered = await movement(hotel, 'refund', 2_000, ago(10), '100001', remitted.request);
    const missing = await movement(hotel, 'payment', 5_000, ago(10), '100002');
    const refunded = await movement(hotel, 'refund', 1_500, ago(5), '100003', missing.request);
    await movement(hotel, 'capture', 9_500, ago(1), '100004');
    await movement(hotel, 'payment', 7_000, ago(40), '100005');
    await movement(hotel, 'hold', 9_500, ago(10), '100006');
    const other = await t.newTenant('Hotel Other');
    await movement(other, 'payment', 4_000, ago(10), '100007');
    const before = ago(3);
    assert.deepEqual(await remittancesRepository(t.db).notPaidOut(hotel.tenantId, before, 50), {
      rows: [],
      count: 0,
      since: null,
    });
    const paymentDay = localDate('Europe/Paris', ago(12)).replaceAll('-', '');
    const result = await importJrb({ db: t.db }, { tenantId: hotel.tenantId, provider: 'sandbox' }, [
      jrb([
        {
          orderId: remitted.request,
          transactionId: '100001',
          type: 'DT',
          amount: 10_000,
          commission: 165,
          paymentDate: paymentDay,
        },
      ]),
    ]);
    assert.deepEqual(
      result,
      { remittances: 1, lines: 1, matched: 1, unmatched: 0, changed: 1 },
      'lowered by its refund: 100.00',
    );
    const found = await remittancesRepository(t.db).notPaidOut(hotel.tenantId, before, 50);
    assert.equal(found.since, localDate('Europe/Paris', ago(12)));
    assert.deepEqual(
      found.rows.map((r) => [r.id, r.kind, r.amount]),
      [
        [missing.ledger, 'payment', 5_000],
        [refunded.ledger, 'refund', 1_500],
      ],
      'not the remitted payment nor the refund that lowered it, not the recent capture, not before the first remittance, not a hold, not another hotel’s',
    );
    assert.equal(found.count, 2);
    assert.ok(found.rows.every((r) => r.reference !== null));
    assert.ok(!found.rows.some((r) => r.id === lowered.ledger));
    assert.equal(
      (await remittancesRepository(t.db).notPaidOut(hotel.tenantId, before, 1)).count,
      2,
      'the count beyond the page',
    );
  });

  test('payreq export --what settlements: each line with its remittance and what it matched, CSV or JSON', async () => {
    const from = addDays(localDate('Europe/Paris', new Date()), -400);
    const to = addDays(localDate('Europe/Paris', new Date()), 400);
    const ctx = { config: t.config, db: t.db, repos: t.repos };
    const run = async (...argv: string[]) => {
      const r = await runCommand(['export', '--tenant', hotel.tenantId, '--from', from, '--to', to, ...argv], ctx);
      assert.equal(r.exitCode, 0, r.stderr);
      return r.stdout;
    };
    const json = JSON.parse(await run('--what', 'settlements', '--format', 'json')) as Record<string, unknown>[];
    assert.equal(json.length, 1);
    assert.deepEqual(
      { ...json[0], reference: undefined, order_id: undefined, movement_id: undefined, payment_date: undefined },
      {
        remittance_nb: '000042',
        remittance_date: '2026-11-21',
        provider: 'sandbox',
        hotel: 'Hôtel des Tests',
        currency: 'EUR',
        direction: 'debit',
        transaction_id: '100001',
        order_id: undefined,
        reference: undefined,
        payment_date: undefined,
        gross: 100,
        fee: 1.65,
        net: 98.35,
        matched: 'true',
        movement_id: undefined,
        unmatched_reason: null,
        payreq_amount: null,
        payment_method: 'CB',
        provider_match_status: 'MATCH_OK',
      },
    );
    const csv = csvObjects(await run('--what', 'settlements'));
    assert.equal(csv.length, 1);
    assert.equal(csv[0]?.gross, '100.00');
    assert.equal(csv[0]?.net, '98.35');
    const empty = await runCommand(
      ['export', '--tenant', hotel.tenantId, '--from', '2020-01-01', '--to', '2020-01-31', '--what', 'settlements'],
      ctx,
    );
    // Every CSV starts with its byte-order mark, then the header.
    assert.equal(empty.stdout.split('\n')[0]?.startsWith('\uFEFFremittance_nb,remittance_date,'), true);
    // `payouts` is the primary spelling, `settlements` its alias: the same lines.
    assert.equal(
      await run('--what', 'payouts', '--format', 'json'),
      await run('--what', 'settlements', '--format', 'json'),
    );
    const bad = await runCommand(
      ['export', '--tenant', hotel.tenantId, '--from', from, '--to', to, '--what', 'remittances'],
      ctx,
    );
    assert.equal(bad.exitCode, 1);
    assert.match(bad.stderr, /--what must be one of requests, ledger, payouts, settlements/);
  });
});
