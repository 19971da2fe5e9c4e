import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/index.ts';
import type { Database } from '../../src/db/index.ts';
import { createDeferredPayments, deferredHoldsRepository } from '../../src/holds/index.ts';
import { providerSecrets } from '../../src/secrets/index.ts';
import { cliEnv, killAll, payreq, scratchDir } from '../cli/payreq-process.ts';
import { sharedDatabases } from '../cli/shared-database.ts';
import { DECLINE_CODES, LYRA_CARDS } from '../fakes/lyra/fake-store.ts';
import { DEMO_SHOP, formTokenOf, type LyraFake, startLyraFake } from '../fakes/lyra/lyra-fake.ts';
import { ENGINE } from '../helpers/database.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { createBody, newTenant } from '../helpers/test-app.ts';

const SECRET_KEY = 's'.repeat(64);
const CHECKIN = '2026-12-12';

// What an operator sees with the commands alone, on Lyra: a hold the issuer refused and a refund
// the bank refused, both answers lost. `payreq job run reconcile_claims` reads the refusals
// from Lyra's order view (no grace: a refusal is final): the hold is a failed guarantee, the
// refund gave nothing back and the request can be refunded again; `payreq books check` agrees.
describe(`refusals behind lost answers, settled by the commands (${ENGINE})`, { timeout: 180_000 }, () => {
  const scratch = scratchDir();
  const databases = sharedDatabases(scratch.dir);
  let fake: LyraFake;
  after(async () => {
    killAll();
    await fake?.close();
    await databases.drop();
    scratch.cleanup();
  });

  test('reconcile_claims: a failed guarantee and a refund that gave nothing back; books check agrees', async () => {
    fake = await startLyraFake();
    const shared = await databases.create();
    const env = cliEnv({ DATABASE_URL: shared.url, SECRET_KEY, PROVIDER_TIMEOUT_MS: '1000' });
    const start = async (): Promise<{ app: FastifyInstance; db: Database }> => {
      const db = await shared.open();
      const config = loadConfig({ ...env, NODE_ENV: 'test', LOG_LEVEL: 'silent' } as NodeJS.ProcessEnv);
      const app = await buildApp({ config, db });
      await app.ready();
      return { app, db };
    };
    let { app, db } = await start();
    const hotel = await newTenant(app.payreq.repos, 'Hôtel des Refus');
    await app.payreq.repos.providerAccounts.set(hotel.tenantId, {
      provider: 'lyra',
      shopId: DEMO_SHOP.shopId,
      apiUrl: fake.apiUrl,
      staticUrl: fake.staticUrl,
      mode: 'TEST',
      secretsSealed: providerSecrets(app.payreq.secretKeys).seal(
        JSON.stringify({ password: DEMO_SHOP.password, public_key: DEMO_SHOP.publicKey, hmac_key: DEMO_SHOP.hmacKey }),
        hotel.tenantId,
      ),
    });
    const create = async (body: object) => {
      const r = await app.inject({
        method: 'POST',
        url: '/api/payment-requests/',
        headers: hotel.headers,
        payload: body,
      });
      assert.equal(r.statusCode, 201, r.body);
      return r.json() as { uuid: string; reference: string };
    };
    const guestPays = async (r: { uuid: string; reference: string }, type: 'IMPRINT' | 'DEPOSIT', pan: string) => {
      await arrangeStatus(db, r.uuid, 'PENDING');
      const lyra = await app.payreq.providers.forTenant(hotel.tenantId);
      const form = await lyra.startGuestPayment({
        paymentRequestId: r.uuid,
        reference: r.reference,
        requestType: type,
        amountCents: type === 'DEPOSIT' ? 10_000 : 0,
        currency: 'EUR',
        language: 'en',
        guestEmail: 'guest@example.test',
        merchantName: 'Hotel Test',
        returnUrl: `http://127.0.0.1/pay/${r.uuid}/result`,
        notifyUrl: 'http://127.0.0.1/ipn/lyra/',
      });
      const { ipnBody } = fake.completeForm(formTokenOf(form), pan);
      assert.equal(await app.payreq.notifications.apply('lyra', lyra.parseNotification(ipnBody, {})), 'applied');
    };

    // An imprint whose card the bank refuses for good from now on (stolen: a soft reason would
    // be tried again before check-in), and a deposit paid and remitted.
    const imprint = await create(
      createBody({ request_type: 'IMPRINT', amount: 80, reservation_data: { checkin: CHECKIN } }),
    );
    await guestPays(imprint, 'IMPRINT', LYRA_CARDS.refusedLater);
    const token = fake.store.order(imprint.uuid).find((x) => x.paymentMethodToken)?.paymentMethodToken;
    assert.ok(token, 'the saved card');
    fake.store.refuseCardFromNowOn(token, DECLINE_CODES.stolenCard);
    const deposit = await create(createBody({ request_type: 'DEPOSIT', amount: 100 }));
    await guestPays(deposit, 'DEPOSIT', LYRA_CARDS.accepted);
    fake.store.runBatch();
    const payment = fake.store.order(deposit.uuid)[0];
    assert.equal(payment?.detailedStatus, 'CAPTURED');

    // The hold is refused and its answer lost; the refund is refused and its answer lost.
    fake.failNext('Charge/CreatePayment', 'lose');
    const run = await createDeferredPayments(
      { holds: deferredHoldsRepository(app.payreq.db), runner: app.payreq.runner, cardTokens: app.payreq.cardTokens },
      '2026-12-10',
    );
    assert.equal(run.in_doubt, 1, JSON.stringify(run));
    fake.store.refuseNextRefund(payment.uuid);
    fake.failNext('Transaction/CancelOrRefund', 'lose');
    const refund = await app.inject({
      method: 'POST',
      url: `/api/payment-requests/${deposit.uuid}/refund/`,
      headers: hotel.headers,
      payload: { amount: 30 },
    });
    assert.equal(refund.statusCode, 504, refund.body);
    await app.close();
    await db.close();

    const reconciled = await payreq(['job', 'run', 'reconcile_claims', '--json'], env, scratch.dir);
    assert.equal(reconciled.code, 0, reconciled.stderr);
    const r = JSON.parse(reconciled.stdout) as { refused: number; unknown: number };
    assert.deepEqual([r.refused, r.unknown], [2, 0], reconciled.stdout);
    const books = await payreq(['books', 'check', '--tenant', hotel.tenantId, '--json'], env, scratch.dir);
    assert.equal(books.code, 0, `${books.stdout}\n${books.stderr}`);
    assert.equal(books.stdout.trim(), '{"orders":2,"agree":2,"disagree":0,"in_doubt":0}');

    ({ app, db } = await start());
    const status = async (id: string) =>
      (
        await db.query<{ status: string; amount_refunded: number; pending_action: string | null }>(
          'SELECT status, amount_refunded, pending_action FROM payment_requests WHERE id = $1',
          [id],
        )
      ).rows[0];
    assert.equal((await status(imprint.uuid))?.status, 'ERROR', 'a failed guarantee');
    const events = await db.query<{ type: string }>(
      "SELECT type FROM events WHERE payment_request_id = $1 AND type = 'payment_request.guarantee_failed'",
      [imprint.uuid],
    );
    assert.equal(events.rows.length, 1);
    assert.deepEqual(await status(deposit.uuid), { status: 'CAPTURED', amount_refunded: 0, pending_action: null });
    // The request can be refunded again, once.
    const again = await app.inject({
      method: 'POST',
      url: `/api/payment-requests/${deposit.uuid}/refund/`,
      headers: hotel.headers,
      payload: { amount: 30 },
    });
    assert.equal(again.statusCode, 200, again.body);
    assert.equal((await status(deposit.uuid))?.amount_refunded, 3000);
    await app.close();
    await db.close();
  });
});
