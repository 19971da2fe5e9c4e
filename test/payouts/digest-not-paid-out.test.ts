import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { digestPayload } from '../../src/day-plan/index.ts';
import { renderDailyDigest } from '../../src/mail/index.ts';
import { importJrb, remittancesRepository } from '../../src/payouts/index.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { jrb } from './jrb-file.ts';

const DAY = 86_400_000;

// The daily digest tells the hotel what was never paid out, once it imports remittances: money
// captured or refunded more than SETTLEMENT_DELAY_DAYS ago that no remittance holds.
describe(`the daily digest's "not paid out" (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    await t.close();
  });

  test('no section before a first remittance; then the money no remittance holds, in the digest’s language', async () => {
    const tenant = { id: t.tenant.tenantId, timezone: 'Europe/Paris' };
    const remitted = await createRequest(t, { request_type: 'DEPOSIT', amount: 120 });
    const missing = await createRequest(t, { request_type: 'DEPOSIT', amount: 45 });
    for (const [id, amount, number] of [
      [remitted.uuid, 12_000, '300001'],
      [missing.uuid, 4_500, '300002'],
    ] as const) {
      await t.db.query(
        `INSERT INTO money_ledger (payment_request_id, tenant_id, kind, amount, currency, provider, idempotency_key,
           state, source, legacy_trans_id, created_at)
         VALUES ($1, $2, 'payment', $3, 'EUR', 'sandbox', $4, 'succeeded', 'ipn', $5, $6)`,
        [id, tenant.id, amount, `event:${randomUUID()}`, number, new Date(Date.now() - 6 * DAY)],
      );
    }
    const opts = { inDoubtGraceSeconds: 120, settlementDelayDays: 3 };
    const mailRow = (language: 'en' | 'fr' | 'de') => ({
      id: tenant.id,
      name: 'Hôtel du Lac',
      sender_email: null,
      contact_email: 'desk@example.test',
      timezone: tenant.timezone,
      digest_language: language,
    });
    const before = await digestPayload(
      { ...t.repos, remittances: remittancesRepository(t.db) },
      tenant,
      new Date(),
      opts,
    );
    assert.equal(before.notPaidOut, null);
    assert.doesNotMatch(renderDailyDigest(before, mailRow('en'), 'https://payreq.example').text, /Not paid out/);

    const paidOn = new Date(Date.now() - 7 * DAY).toISOString().slice(0, 10).replaceAll('-', '');
    await importJrb({ db: t.db }, { tenantId: tenant.id, provider: 'sandbox' }, [
      jrb([{ orderId: remitted.uuid, transactionId: '300001', type: 'DT', amount: 12_000, paymentDate: paidOn }]),
    ]);
    // Stored as the outbox keeps it (JSON), then rendered.
    const payload = JSON.parse(
      JSON.stringify(
        await digestPayload({ ...t.repos, remittances: remittancesRepository(t.db) }, tenant, new Date(), opts),
      ),
    );
    assert.equal(payload.notPaidOut.count, 1);
    const en = renderDailyDigest(payload, mailRow('en'), 'https://payreq.example');
    const section = en.text.slice(en.text.indexOf('Not paid out'));
    assert.match(section, /more than 3 days ago that no imported remittance/);
    assert.match(section, new RegExp(`${missing.reference} · guest payment · €45\\.00`));
    assert.doesNotMatch(section.slice(0, section.indexOf('\n\n')), new RegExp(remitted.reference));
    assert.match(en.html, /Not paid out/);
    assert.match(renderDailyDigest(payload, mailRow('fr'), 'https://payreq.example').text, /Non versé/);
    assert.match(renderDailyDigest(payload, mailRow('de'), 'https://payreq.example').text, /Nicht ausgezahlt/);
    const later = await digestPayload({ ...t.repos, remittances: remittancesRepository(t.db) }, tenant, new Date(), {
      ...opts,
      settlementDelayDays: 10,
    });
    assert.equal(later.notPaidOut?.count, 0, 'within the delay: nothing yet');
    assert.match(
      renderDailyDigest(later, mailRow('en'), 'https://payreq.example').text,
      /Nothing: every older payment and refund is in an imported remittance\./,
    );
  });
});
