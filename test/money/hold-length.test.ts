import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { emailOutboxRepository } from '../../src/db/index.ts';
import { addDays } from '../../src/domain/index.ts';
import { createDeferredPayments, deferredHoldsRepository } from '../../src/holds/index.ts';
import { emailSubjects } from '../../src/mail/index.ts';
import { renderCardRegistered } from '../../src/mail/templates.ts';
import { providerSecrets } from '../../src/secrets/index.ts';
import { LYRA_CARDS } from '../fakes/lyra/fake-store.ts';
import { DEMO_SHOP, formTokenOf, type LyraFake, startLyraFake } from '../fakes/lyra/lyra-fake.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { createRequest, ENGINE, startTestApp, type TenantWithKey, type TestApp } from '../helpers/test-app.ts';

// The daily job's hold on a stored card lives as long as the hotel's hold length says, unless
// the card's network lapses a merchant-initiated hold sooner (Visa: 4 days and 18 hours; CB
// and Mastercard: 7 days), on Lyra as on the sandbox, which plays the networks by the test
// card's brand; and it names the registration's network transaction, as the networks ask.

const D = '2026-12-10';
const HOUR = 3600_000;
const VISA_HOURS = 4 * 24 + 18;
const SEVEN_DAYS_HOURS = 7 * 24;

describe(`the daily hold's length and its network id (${ENGINE})`, { timeout: 120_000 }, () => {
  let t: TestApp;
  let fake: LyraFake;
  let lyraHotel: TenantWithKey;
  let sandboxHotel: TenantWithKey;

  before(async () => {
    fake = await startLyraFake();
    t = await startTestApp();
    lyraHotel = t.tenant;
    sandboxHotel = await t.newTenant('Hôtel du Bac à Sable');
    const secrets = { password: DEMO_SHOP.password, public_key: DEMO_SHOP.publicKey, hmac_key: DEMO_SHOP.hmacKey };
    await t.repos.providerAccounts.set(lyraHotel.tenantId, {
      provider: 'lyra',
      shopId: DEMO_SHOP.shopId,
      apiUrl: fake.apiUrl,
      staticUrl: null,
      mode: 'TEST',
      secretsSealed: providerSecrets(t.app.payreq.secretKeys).seal(JSON.stringify(secrets), lyraHotel.tenantId),
    });
  });
  after(async () => {
    await t?.close();
    await fake?.close();
  });

  const setHoldDays = (tenantId: string, days: number) =>
    t.db.query('UPDATE tenants SET hold_days = $2 WHERE id = $1', [tenantId, days]);

  /** An IMPRINT of the Lyra hotel whose guest saved a card on Lyra's form: its registration notification applied. */
  async function registeredOnLyra(pan: string = LYRA_CARDS.accepted): Promise<{ id: string; networkId: string }> {
    const created = await createRequest(
      t,
      { request_type: 'IMPRINT', language: 'en', reservation_data: { checkin: D } },
      lyraHotel,
    );
    await arrangeStatus(t.db, created.uuid, 'PENDING');
    const lyra = await t.app.payreq.providers.forTenant(lyraHotel.tenantId);
    const form = await lyra.startGuestPayment({
      paymentRequestId: created.uuid,
      reference: created.reference,
      requestType: 'IMPRINT',
      amountCents: 0,
      currency: 'EUR',
      language: 'en',
      guestEmail: 'guest@example.test',
      merchantName: 'Hotel Test',
      returnUrl: `http://127.0.0.1/pay/${created.uuid}/result`,
      notifyUrl: 'http://127.0.0.1/ipn/lyra/',
    });
    const token = formTokenOf(form);
    const { uuid, ipnBody } = fake.completeForm(token, pan);
    const notification = lyra.parseNotification(ipnBody, {});
    assert.equal(await t.app.payreq.notifications.apply('lyra', notification), 'applied');
    const networkId = fake.store.transactions.get(uuid)?.networkTransactionId;
    assert.ok(networkId, 'the fake gave the registration a network id');
    return { id: created.uuid, networkId };
  }

  /** An IMPRINT of the sandbox hotel with a saved card. */
  async function registeredOnSandbox(pan = '4242424242424242'): Promise<string> {
    const created = await createRequest(
      t,
      { request_type: 'IMPRINT', language: 'en', reservation_data: { checkin: D } },
      sandboxHotel,
    );
    const token = `tok_${created.uuid.slice(0, 8)}`;
    await t.db.query('INSERT INTO sandbox_tokens (token, card_number, exp_month, exp_year) VALUES ($1, $2, 12, 2031)', [
      token,
      pan,
    ]);
    const outcome = await t.app.payreq.notifications.apply('sandbox', {
      eventId: `evt_${created.uuid}`,
      paymentRequestId: created.uuid,
      outcome: 'registered',
      cardToken: token,
      maskedPan: `${pan.slice(0, 6)}XXXXXX${pan.slice(-4)}`,
      expiryMonth: 12,
      expiryYear: 2031,
    });
    assert.equal(outcome, 'applied');
    return created.uuid;
  }

  const runJob = () =>
    createDeferredPayments(
      { holds: deferredHoldsRepository(t.db), runner: t.app.payreq.runner, cardTokens: t.app.payreq.cardTokens },
      addDays(D, -2),
    );

  /** Hours from now to the request's hold end. */
  async function holdHours(id: string): Promise<number> {
    const r = await t.db.query<{ status: string; hold_expires_at: Date | null }>(
      'SELECT status, hold_expires_at FROM payment_requests WHERE id = $1',
      [id],
    );
    const row = r.rows[0];
    assert.equal(row?.status, 'AUTHORISED_TO_VALIDATE');
    assert.ok(row?.hold_expires_at);
    return (new Date(row.hold_expires_at).getTime() - Date.now()) / HOUR;
  }

  const near = async (id: string, hours: number, why: string) => {
    const got = await holdHours(id);
    assert.ok(Math.abs(got - hours) < 0.1, `${why}: ${got} hours, not ${hours}`);
  };

  test('Lyra: a CB card keeps 7 days at most, a card on the Visa network 4 days 18 hours; a shorter hotel length stays', async () => {
    await setHoldDays(lyraHotel.tenantId, 8);
    const cb = await registeredOnLyra();
    const visa = await registeredOnLyra('4242424242424242');
    assert.equal((await runJob()).held, 2);
    await near(cb.id, SEVEN_DAYS_HOURS, 'CB (Lyra names it): 7 days, not the hotel 8');
    await near(visa.id, VISA_HOURS, 'Visa network: 4 days 18 hours');
    const stored = await t.db.query<{ id: string; card_network: string }>(
      'SELECT id, card_network FROM payment_requests WHERE id = ANY($1::uuid[]) ORDER BY card_network',
      [[cb.id, visa.id]],
    );
    assert.deepEqual(
      stored.rows.map((r) => r.card_network),
      ['cb', 'visa'],
    );

    await setHoldDays(lyraHotel.tenantId, 2);
    const short = await registeredOnLyra();
    assert.equal((await runJob()).held, 1);
    await near(short.id, 2 * 24, 'shorter than the network: the hotel setting');
  });

  test("the sandbox plays the test card's network: Visa 4242 lapses in 4 days 18 hours, Mastercard 5555 keeps 6 hotel days", async () => {
    await setHoldDays(sandboxHotel.tenantId, 6);
    const visa = await registeredOnSandbox('4242424242424242');
    const mastercard = await registeredOnSandbox('5555555555554444');
    assert.equal((await runJob()).held, 2);
    await near(visa, VISA_HOURS, 'Visa');
    await near(mastercard, 6 * 24, 'Mastercard: the hotel 6 days, within its 7');
  });

  test("the hold names the registration's network transaction (initialIssuerTransactionIdentifier)", async () => {
    const { id, networkId } = await registeredOnLyra();
    const before = fake.calls.length;
    assert.equal((await runJob()).held, 1);
    const silent = fake.calls
      .slice(before)
      .find((c) => c.service === 'Charge/CreatePayment' && c.body.formAction === 'SILENT' && c.body.orderId === id);
    assert.ok(silent, 'a SILENT CreatePayment for the order');
    const options = (silent.body.transactionOptions as { cardOptions: Record<string, unknown> }).cardOptions;
    assert.equal(options.initialIssuerTransactionIdentifier, networkId);
    assert.equal(options.manualValidation, 'YES');
  });

  test("the guest is told the hold lasts no longer than the card's network allows: page and e-mail", async () => {
    await setHoldDays(lyraHotel.tenantId, 6);
    await setHoldDays(sandboxHotel.tenantId, 6);
    const lyra = (await registeredOnLyra()).id;
    const sandbox = await registeredOnSandbox();
    /** The days of the guarantee notice, on the result page and in the card-registered e-mail. */
    async function toldDays(id: string): Promise<{ page: string | undefined; mail: string | undefined }> {
      const page = await t.call({ method: 'GET', url: `/payment/${id}/result/`, tenant: null });
      assert.equal(page.statusCode, 200, page.body);
      const subject = (await emailSubjects(emailOutboxRepository(t.db), [id])).get(id);
      assert.ok(subject);
      const mail = renderCardRegistered(subject, 'Hotel').text;
      const days = (text: string) => /for (\d+) days at most/.exec(text)?.[1];
      return { page: days(page.body), mail: days(mail) };
    }
    // The card registered decides: Lyra's test card is a CB card (7 days: the hotel's 6 stand);
    // the sandbox's 4242 a Visa (4 days 18 hours, told as 5).
    assert.deepEqual(await toldDays(lyra), { page: '6', mail: '6' }, 'CB: the hotel 6 days');
    assert.deepEqual(await toldDays(sandbox), { page: '5', mail: '5' }, 'Visa: 4 days 18 hours, told as 5');
    await setHoldDays(sandboxHotel.tenantId, 3);
    assert.deepEqual(await toldDays(sandbox), { page: '3', mail: '3' }, 'a shorter hotel length is told as it is');
  });
});
