import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { DECLINE_CODES, HOLD_VALIDITY_MS, LYRA_CARDS } from './lyra/fake-store.ts';
import { DEMO_SHOP, DEMO_SHOP_PRODUCTION, type LyraFake, type ShopKeys, startLyraFake } from './lyra/lyra-fake.ts';

// The fake's own controls, met over HTTP as the adapter meets Lyra: `POST {apiUrl}V4/<Service>`,
// Basic auth with the shop's id and password, JSON in, the V4 envelope out. What the fake
// invents says so in its own comments (test/fakes/lyra/).

interface Envelope {
  status: 'SUCCESS' | 'ERROR';
  answer: unknown;
}

interface Tx {
  uuid: string;
  amount: number;
  status: string;
  detailedStatus: string;
  operationType: string;
  creationDate: string;
  errorCode: string | null;
  detailedErrorCode: string | null;
  metadata: Record<string, string> | null;
  paymentMethodToken: string | null;
  transactionDetails: {
    parentTransactionUuid: string | null;
    cardDetails: { captureResponse: { refundAmount: number | null; captureDate: string | null } };
  };
}

interface Payment {
  orderStatus: string;
  transactions: Tx[];
}

const DAY = 24 * 3600 * 1000;

describe('the Lyra fake: clock, expiry, remittance and the odd states', () => {
  let fake: LyraFake;
  beforeEach(async () => {
    fake = await startLyraFake();
  });
  afterEach(async () => {
    await fake?.close();
  });

  async function call(service: string, body: Record<string, unknown>, keys: ShopKeys = DEMO_SHOP): Promise<Envelope> {
    const r = await fetch(`${fake.apiUrl}V4/${service}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Basic ${Buffer.from(`${keys.shopId}:${keys.password}`).toString('base64')}`,
      },
      body: JSON.stringify(body),
    });
    assert.equal(r.status, 200);
    return (await r.json()) as Envelope;
  }

  async function ok<T>(service: string, body: Record<string, unknown>, keys: ShopKeys = DEMO_SHOP): Promise<T> {
    const e = await call(service, body, keys);
    assert.equal(e.status, 'SUCCESS', `${service}: ${JSON.stringify(e.answer)}`);
    return e.answer as T;
  }

  /** The call is refused in the transaction's state: an ERROR envelope with a PSP_ code. */
  async function refusedInState(service: string, body: Record<string, unknown>): Promise<void> {
    const e = await call(service, body);
    assert.equal(e.status, 'ERROR', `${service} was expected to be refused`);
    assert.match((e.answer as { errorCode: string }).errorCode, /^PSP_/);
  }

  const get = (uuid: string, keys: ShopKeys = DEMO_SHOP) => ok<Tx>('Transaction/Get', { uuid }, keys);
  const order = (orderId: string) => ok<{ transactions: Tx[] }>('Order/Get', { orderId }).then((o) => o.transactions);

  /** A card saved on Lyra's form (CreateToken, the guest's card, the VERIFICATION read back): its token. */
  async function savedCard(pan: string = LYRA_CARDS.accepted, keys: ShopKeys = DEMO_SHOP): Promise<string> {
    const { formToken } = await ok<{ formToken: string }>(
      'Charge/CreateToken',
      { orderId: randomUUID(), currency: 'EUR' },
      keys,
    );
    const { uuid } = fake.completeForm(formToken, pan);
    const token = (await get(uuid, keys)).paymentMethodToken;
    assert.ok(token);
    return token;
  }

  /** A SILENT payment on a saved card: held for validation (`manual`) or authorised. */
  async function silent(
    token: string,
    opts: { manual?: boolean; amount?: number; metadata?: Record<string, string>; keys?: ShopKeys } = {},
  ): Promise<{ orderId: string; payment: Payment; tx: Tx }> {
    const orderId = randomUUID();
    const payment = await ok<Payment>(
      'Charge/CreatePayment',
      {
        orderId,
        amount: opts.amount ?? 30000,
        currency: 'EUR',
        formAction: 'SILENT',
        paymentMethodToken: token,
        transactionOptions: { cardOptions: { manualValidation: opts.manual ? 'YES' : 'NO' } },
        metadata: opts.metadata ?? { idempotency_key: randomUUID() },
      },
      opts.keys,
    );
    const tx = payment.transactions[0];
    assert.ok(tx);
    return { orderId, payment, tx };
  }

  const hold = async (amount = 30000) => silent(await savedCard(), { manual: true, amount });

  /** A payment the nightly remittance sent to the bank. */
  async function captured(amount = 20000): Promise<Tx> {
    const { tx } = await silent(await savedCard(), { amount });
    fake.remit();
    const t = await get(tx.uuid);
    assert.equal(t.detailedStatus, 'CAPTURED');
    return t;
  }

  test('a) one clock for every shop: real time until set, then exactly where the test puts it', async () => {
    const production = fake.addShop(DEMO_SHOP_PRODUCTION);
    assert.ok(fake.shops().every((s) => s.store.clock === fake.clock));
    assert.equal(production.clock, fake.clock);

    const before = Date.now();
    const { tx: live } = await hold();
    const created = Date.parse(live.creationDate);
    assert.ok(created >= before && created <= Date.now(), 'real time by default');

    const at = new Date('2030-03-01T09:00:00.000Z');
    fake.clock.set(at);
    assert.equal(fake.clock.now().toISOString(), at.toISOString());
    const token = await savedCard(LYRA_CARDS.accepted, DEMO_SHOP_PRODUCTION);
    const { tx } = await silent(token, { keys: DEMO_SHOP_PRODUCTION });
    assert.equal(tx.creationDate, at.toISOString(), 'the production shop reads the same clock');

    fake.clock.advance(DAY);
    assert.equal(fake.clock.now().toISOString(), '2030-03-02T09:00:00.000Z');
    fake.remit();
    const remitted = await get(tx.uuid, DEMO_SHOP_PRODUCTION);
    assert.equal(remitted.detailedStatus, 'CAPTURED');
    assert.equal(remitted.transactionDetails.cardDetails.captureResponse.captureDate, '2030-03-02T09:00:00.000Z');
  });

  test('b) a hold not validated within its validity (7 days, CB network) is EXPIRED, read lazily', async () => {
    fake.clock.set(new Date('2030-05-10T12:00:00.000Z'));
    const { orderId, tx } = await hold();
    const other = await hold();
    fake.clock.advance(HOLD_VALIDITY_MS - 1);
    assert.equal((await get(tx.uuid)).detailedStatus, 'AUTHORISED_TO_VALIDATE');

    fake.clock.advance(1);
    const expired = await get(tx.uuid);
    assert.deepEqual([expired.detailedStatus, expired.status], ['EXPIRED', 'UNPAID']);
    const [inOrder] = await order(orderId);
    assert.deepEqual([inOrder?.detailedStatus, inOrder?.status], ['EXPIRED', 'UNPAID']);
    assert.equal(fake.store.transactions.get(other.tx.uuid)?.detailedStatus, 'EXPIRED', 'the raw map too');

    // Like any state past the bank's reach: no Validate, Cancel, Update nor cancellation.
    await refusedInState('Transaction/Validate', { uuid: tx.uuid });
    await refusedInState('Transaction/Cancel', { uuid: tx.uuid });
    const update = { uuid: tx.uuid, cardUpdate: { amount: 100, currency: 'EUR' } };
    await refusedInState('Transaction/Update', update);
    const cancel = { uuid: tx.uuid, amount: 30000, currency: 'EUR', resolutionMode: 'CANCELLATION_ONLY' };
    await refusedInState('Transaction/CancelOrRefund', cancel);

    // A hold validated in time does not expire.
    fake.clock.set(new Date('2030-06-01T00:00:00.000Z'));
    const validated = await hold();
    await ok<Tx>('Transaction/Validate', { uuid: validated.tx.uuid });
    fake.clock.advance(30 * DAY);
    assert.equal((await get(validated.tx.uuid)).detailedStatus, 'AUTHORISED');
  });

  test('c) the remittance runs on every shop; a failed one leaves CAPTURE_FAILED', async () => {
    fake.addShop(DEMO_SHOP_PRODUCTION);
    const { tx: test } = await silent(await savedCard());
    const { tx: prod } = await silent(await savedCard(LYRA_CARDS.accepted, DEMO_SHOP_PRODUCTION), {
      keys: DEMO_SHOP_PRODUCTION,
    });
    const failing = await hold();
    await ok<Tx>('Transaction/Validate', { uuid: failing.tx.uuid });
    fake.store.failRemittanceOf(failing.tx.uuid);

    fake.remit();
    assert.equal((await get(test.uuid)).detailedStatus, 'CAPTURED');
    assert.equal((await get(prod.uuid, DEMO_SHOP_PRODUCTION)).detailedStatus, 'CAPTURED');
    const failed = await get(failing.tx.uuid);
    assert.deepEqual([failed.detailedStatus, failed.status], ['CAPTURE_FAILED', 'RUNNING']);
    assert.equal(failed.transactionDetails.cardDetails.captureResponse.captureDate, null);

    // The failure is for one remittance; store.runBatch() still runs one shop alone.
    fake.store.runBatch();
    assert.equal((await get(failing.tx.uuid)).detailedStatus, 'CAPTURE_FAILED');
    assert.throws(() => fake.store.failRemittanceOf('nope'), /no transaction/);
  });

  test('d) a validation that waits for its authorisation: WAITING_AUTHORISATION, then the batch decides', async () => {
    const granted = await hold();
    fake.store.validateWaits(granted.tx.uuid, 'AUTHORISED');
    const answer = await ok<Tx>('Transaction/Validate', { uuid: granted.tx.uuid });
    assert.deepEqual([answer.detailedStatus, answer.status], ['WAITING_AUTHORISATION', 'RUNNING']);
    const [stored] = await order(granted.orderId);
    assert.equal(stored?.detailedStatus, 'WAITING_AUTHORISATION');

    const refused = await hold();
    fake.store.validateWaits(refused.tx.uuid, 'REFUSED');
    await ok<Tx>('Transaction/Validate', { uuid: refused.tx.uuid });

    const stolen = await hold();
    fake.store.validateWaits(stolen.tx.uuid, 'REFUSED', DECLINE_CODES.stolenCard);
    await ok<Tx>('Transaction/Validate', { uuid: stolen.tx.uuid });

    // Cancelling a hold waiting for its authorisation is allowed (Transaction/Cancel's statuses).
    const cancelled = await hold();
    fake.store.validateWaits(cancelled.tx.uuid, 'AUTHORISED');
    await ok<Tx>('Transaction/Validate', { uuid: cancelled.tx.uuid });
    assert.equal((await ok<Tx>('Transaction/Cancel', { uuid: cancelled.tx.uuid })).detailedStatus, 'CANCELLED');

    fake.remit();
    assert.deepEqual(
      [(await get(granted.tx.uuid)).detailedStatus, (await get(granted.tx.uuid)).status],
      ['CAPTURED', 'PAID'],
    );
    const no = await get(refused.tx.uuid);
    assert.deepEqual(
      [no.detailedStatus, no.status, no.errorCode, no.detailedErrorCode],
      ['REFUSED', 'UNPAID', 'ACQ_001', '51'],
    );
    assert.equal((await get(stolen.tx.uuid)).detailedErrorCode, '43');
    assert.equal((await get(cancelled.tx.uuid)).detailedStatus, 'CANCELLED');

    // Only the next Validate waits: another hold validates as before.
    const plain = await hold();
    assert.equal((await ok<Tx>('Transaction/Validate', { uuid: plain.tx.uuid })).detailedStatus, 'AUTHORISED');
  });

  test('e) a refund the bank refuses, and an accepted one cancelled later', async () => {
    const payment = await captured(20000);
    fake.store.refuseNextRefund(payment.uuid);
    const refund = { uuid: payment.uuid, amount: 5000, currency: 'EUR', resolutionMode: 'REFUND_ONLY' };
    const refused = await ok<Tx>('Transaction/CancelOrRefund', refund);
    assert.deepEqual(
      [refused.operationType, refused.detailedStatus, refused.status, refused.errorCode, refused.detailedErrorCode],
      ['CREDIT', 'REFUSED', 'UNPAID', 'ACQ_001', '05'],
    );
    assert.notEqual(refused.uuid, payment.uuid);
    assert.equal(refused.transactionDetails.parentTransactionUuid, payment.uuid);
    assert.equal((await get(payment.uuid)).transactionDetails.cardDetails.captureResponse.refundAmount, null);

    // The next refund goes through; cancelled, its amount leaves the payment's refunded total.
    const accepted = await ok<Tx>('Transaction/CancelOrRefund', refund);
    assert.deepEqual([accepted.detailedStatus, accepted.status], ['AUTHORISED', 'PAID']);
    assert.equal((await get(payment.uuid)).transactionDetails.cardDetails.captureResponse.refundAmount, 5000);
    fake.store.cancelCredit(accepted.uuid);
    const cancelled = await get(accepted.uuid);
    assert.deepEqual([cancelled.detailedStatus, cancelled.status], ['CANCELLED', 'UNPAID']);
    assert.equal((await get(payment.uuid)).transactionDetails.cardDetails.captureResponse.refundAmount, 0);
    assert.throws(() => fake.store.cancelCredit(accepted.uuid), /not an accepted refund/);
    assert.throws(() => fake.store.cancelCredit(refused.uuid), /not an accepted refund/);

    // The order lists the three: the payment and both credits, as Lyra keeps them.
    const statuses = (await order(orderIdOf(payment))).map((t) => `${t.operationType}:${t.detailedStatus}`);
    assert.deepEqual(statuses.sort(), ['CREDIT:CANCELLED', 'CREDIT:REFUSED', 'DEBIT:CAPTURED']);

    // A chosen code.
    const other = await captured(10000);
    fake.store.refuseNextRefund(other.uuid, DECLINE_CODES.lostCard);
    const lost = await ok<Tx>('Transaction/CancelOrRefund', { ...refund, uuid: other.uuid });
    assert.equal(lost.detailedErrorCode, '41');
  });

  /** The order of a transaction the fake holds. */
  function orderIdOf(t: Tx): string {
    const orderId = fake.store.transactions.get(t.uuid)?.orderId;
    assert.ok(orderId);
    return orderId;
  }

  test('f) an odd status stored: shown in every later answer until settled or the next batch', async () => {
    const { orderId, tx } = await hold();
    fake.failNext('Transaction/Validate', { answerStatus: 'UNDER_VERIFICATION', stored: true });
    const answer = await ok<Tx>('Transaction/Validate', { uuid: tx.uuid });
    assert.deepEqual([answer.detailedStatus, answer.status], ['UNDER_VERIFICATION', 'RUNNING']);
    assert.equal(fake.store.get(tx.uuid).detailedStatus, 'AUTHORISED', 'the call was performed');
    assert.equal((await get(tx.uuid)).detailedStatus, 'UNDER_VERIFICATION');
    assert.equal((await order(orderId))[0]?.detailedStatus, 'UNDER_VERIFICATION');
    fake.store.settleShown();
    assert.deepEqual([(await get(tx.uuid)).detailedStatus, (await get(tx.uuid)).status], ['AUTHORISED', 'PAID']);

    // A known status stored shows its own simple status; the next batch settles it.
    const other = await hold();
    fake.failNext('Transaction/Cancel', { answerStatus: 'SOMETHING_NEW', stored: true });
    await ok<Tx>('Transaction/Cancel', { uuid: other.tx.uuid });
    fake.failNext('Transaction/Get', { answerStatus: 'CAPTURED', stored: true });
    const shown = await get(other.tx.uuid);
    assert.deepEqual([shown.detailedStatus, shown.status], ['CAPTURED', 'PAID']);
    assert.equal((await get(other.tx.uuid)).detailedStatus, 'CAPTURED');
    fake.remit();
    assert.deepEqual(
      [(await get(other.tx.uuid)).detailedStatus, (await get(other.tx.uuid)).status],
      ['CANCELLED', 'UNPAID'],
    );

    // Without `stored`, only that answer shows it (RUNNING, as before).
    const third = await hold();
    fake.failNext('Transaction/Validate', { answerStatus: 'CAPTURED' });
    const once = await ok<Tx>('Transaction/Validate', { uuid: third.tx.uuid });
    assert.deepEqual([once.detailedStatus, once.status], ['CAPTURED', 'RUNNING']);
    assert.equal((await get(third.tx.uuid)).detailedStatus, 'AUTHORISED');

    // A SILENT payment's answer is a Payment: its transaction is the one stored.
    fake.failNext('Charge/CreatePayment', { answerStatus: 'UNDER_VERIFICATION', stored: true });
    const fourth = await hold();
    assert.equal(fourth.tx.detailedStatus, 'UNDER_VERIFICATION');
    assert.equal((await get(fourth.tx.uuid)).detailedStatus, 'UNDER_VERIFICATION');
    assert.equal(fake.store.get(fourth.tx.uuid).detailedStatus, 'AUTHORISED_TO_VALIDATE');
  });

  test('g) refused payments carry ACQ_001 and the bank code, and keep the caller metadata', async () => {
    const metadata = { idempotency_key: randomUUID(), hotel: 'bac-a-sable' };
    const later = await silent(await savedCard(LYRA_CARDS.refusedLater), { manual: true, metadata });
    assert.deepEqual(
      [later.tx.detailedStatus, later.tx.status, later.tx.errorCode, later.tx.detailedErrorCode],
      ['REFUSED', 'UNPAID', 'ACQ_001', '51'],
    );
    assert.deepEqual(later.tx.metadata, metadata);
    assert.equal(later.payment.orderStatus, 'UNPAID');
    assert.deepEqual((await get(later.tx.uuid)).metadata, metadata);

    // The refused test card on the guest's form: 51 as recorded.
    const { formToken } = await ok<{ formToken: string }>('Charge/CreatePayment', {
      orderId: randomUUID(),
      amount: 1000,
      currency: 'EUR',
    });
    const { uuid } = fake.completeForm(formToken, LYRA_CARDS.refused);
    const onForm = await get(uuid);
    assert.deepEqual([onForm.detailedStatus, onForm.errorCode, onForm.detailedErrorCode], ['REFUSED', 'ACQ_001', '51']);

    // A card refused from now on: 51 by default, or the code the test names.
    const token = await savedCard();
    fake.store.refuseCardFromNowOn(token);
    assert.equal((await silent(token)).tx.detailedErrorCode, '51');
    const stolen = await savedCard();
    fake.store.refuseCardFromNowOn(stolen, DECLINE_CODES.stolenCard);
    const refused = await silent(stolen, { metadata });
    assert.deepEqual(
      [refused.tx.detailedStatus, refused.tx.errorCode, refused.tx.detailedErrorCode],
      ['REFUSED', 'ACQ_001', '43'],
    );
    assert.deepEqual(refused.tx.metadata, metadata);
  });

  test('h) a raw status: the transaction shows what the test set, the store acts on it', async () => {
    const { orderId, tx } = await hold();
    fake.store.setStatus(tx.uuid, 'SOMETHING_NEW');
    const odd = await get(tx.uuid);
    assert.deepEqual([odd.detailedStatus, odd.status], ['SOMETHING_NEW', 'RUNNING']);
    assert.equal((await order(orderId))[0]?.detailedStatus, 'SOMETHING_NEW');
    await refusedInState('Transaction/Validate', { uuid: tx.uuid });
    fake.store.setStatus(tx.uuid, 'AUTHORISED_TO_VALIDATE');
    assert.equal((await ok<Tx>('Transaction/Validate', { uuid: tx.uuid })).detailedStatus, 'AUTHORISED');
    assert.throws(() => fake.store.setStatus('nope', 'CAPTURED'), /no transaction/);
  });
});
