import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { RequestType } from '../../src/domain/index.ts';
import { verdictFromOrder } from '../../src/payment-requests/operations/verdict.ts';
import {
  type GuestCheckoutInput,
  InvalidNotificationError,
  type PaymentProvider,
  ProviderError,
} from '../../src/providers/index.ts';
import {
  checkLyraCredentials,
  clientUrls,
  type LyraAccount,
  lyraProvider,
  signAnswer,
  toLyraAmount,
  verifyBrowserReturn,
} from '../../src/providers/lyra/index.ts';
import { LYRA_CARDS } from '../fakes/lyra/fake-store.ts';
import { DEMO_SHOP, DEMO_SHOP_PRODUCTION, formTokenOf, type LyraFake, startLyraFake } from '../fakes/lyra/lyra-fake.ts';

// The adapter against a loopback Lyra: no database, no app. The fake is the wire protocol as
// recorded; what it invents says so in its own comments.

let fake: LyraFake;
let lyra: PaymentProvider;

function account(overrides: Partial<LyraAccount> = {}): LyraAccount {
  return {
    shopId: DEMO_SHOP.shopId,
    apiUrl: fake.apiUrl,
    staticUrl: 'https://static.payzen.eu/static/',
    mode: 'TEST',
    password: DEMO_SHOP.password,
    publicKey: DEMO_SHOP.publicKey,
    hmacKey: DEMO_SHOP.hmacKey,
    ...overrides,
  };
}

function checkout(orderId: string, requestType: RequestType, amountCents = 0): GuestCheckoutInput {
  return {
    paymentRequestId: orderId,
    reference: `RES-${orderId.slice(0, 8)}`,
    requestType,
    amountCents,
    currency: 'EUR',
    language: 'en',
    guestEmail: 'guest@example.test',
    merchantName: 'Hotel Test',
    returnUrl: `http://127.0.0.1/pay/${orderId}/result`,
    notifyUrl: 'http://127.0.0.1/ipn/lyra/',
  };
}

const call = (orderId: string, transactionId = '') => ({
  orderId,
  reference: 'RES-1',
  currency: 'EUR' as const,
  idempotencyKey: randomUUID(),
  transactionId,
});

/** The guest saves a card on Lyra's form for an IMPRINT; answers the token the notification carries. */
async function registerCard(orderId: string, pan: string = LYRA_CARDS.accepted): Promise<string> {
  const form = await lyra.startGuestPayment(checkout(orderId, 'IMPRINT'));
  const { ipnBody } = fake.completeForm(formTokenOf(form), pan);
  const n = lyra.parseNotification(ipnBody, { 'content-type': 'application/x-www-form-urlencoded' });
  assert.equal(n.outcome, 'registered');
  assert.ok(n.cardToken);
  return n.cardToken;
}

async function holdOf(orderId: string, amountCents: number, pan?: string) {
  const token = await registerCard(orderId, pan);
  const hold = call(orderId);
  const { transactionId } = await lyra.silentHold({ ...hold, cardToken: token, amountCents });
  return { ...hold, transactionId };
}

async function rejection(promise: Promise<unknown>): Promise<ProviderError> {
  const err = await promise.then(
    () => assert.fail('expected the call to fail'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ProviderError, `a ProviderError, got ${String(err)}`);
  return err;
}

/** A port nothing listens on: taken, then freed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A loopback Lyra for the tests of a describe block: its hooks belong to the block, since test
 * files share their process one after another (scripts/run-tests.mjs).
 */
function withLyraFake(): void {
  before(async () => {
    fake = await startLyraFake();
    lyra = lyraProvider(account(), { timeoutMs: 2_000 });
  });
  after(() => fake.close());
}

describe('Lyra adapter: guest payments and notifications', () => {
  withLyraFake();

  test('IMPRINT asks CreateToken (REGISTER) and its notification reads as a registered card', async () => {
    const orderId = randomUUID();
    const form = await lyra.startGuestPayment(checkout(orderId, 'IMPRINT'));
    const sent = fake.calls.at(-1)!;
    assert.equal(sent.service, 'Charge/CreateToken');
    assert.equal(sent.body.formAction, 'REGISTER');
    assert.equal(sent.body.orderId, orderId);
    assert.equal(sent.body.ipnTargetUrl, 'http://127.0.0.1/ipn/lyra/');
    // The card goes to Lyra's script, never to payreq's origin.
    assert.deepEqual(form, {
      kind: 'embedded-form',
      formToken: formTokenOf(form),
      publicKey: DEMO_SHOP.publicKey,
      scriptUrl: 'https://static.payzen.eu/static/js/krypton-client/V4.0/stable/kr-payment-form.min.js',
      themeStylesheetUrl: 'https://static.payzen.eu/static/js/krypton-client/V4.0/ext/neon-reset.min.css',
      themeScriptUrl: 'https://static.payzen.eu/static/js/krypton-client/V4.0/ext/neon.js',
      successUrl: `http://127.0.0.1/pay/${orderId}/result`,
      languageTag: 'en-GB',
    });

    const { uuid, ipnBody } = fake.completeForm(formTokenOf(form), LYRA_CARDS.accepted);
    const n = lyra.parseNotification(ipnBody, {});
    assert.equal(n.outcome, 'registered');
    assert.equal(n.paymentRequestId, orderId);
    assert.equal(n.transactionId, uuid);
    assert.equal(n.maskedPan, '497010XXXXXX0055');
    assert.equal(n.amountCents, 0);
    assert.match(n.cardToken ?? '', /^[0-9a-f]{32}$/);
    // The same notification twice is the same event.
    assert.equal(lyra.parseNotification(ipnBody, {}).eventId, n.eventId);
  });

  test('DEPOSIT asks CreatePayment in minor units and a paid notification says what moved', async () => {
    const orderId = randomUUID();
    const form = await lyra.startGuestPayment(checkout(orderId, 'DEPOSIT', 12345));
    assert.equal(fake.calls.at(-1)!.service, 'Charge/CreatePayment');
    assert.equal(fake.calls.at(-1)!.body.amount, 12345);
    const { ipnBody } = fake.completeForm(formTokenOf(form), LYRA_CARDS.accepted);
    const n = lyra.parseNotification(ipnBody, {});
    assert.equal(n.outcome, 'paid');
    assert.equal(n.amountCents, 12345);
    assert.equal(n.currency, 'EUR');
  });

  test('a refused card notifies refused (ACQ_001), not error', async () => {
    const orderId = randomUUID();
    const form = await lyra.startGuestPayment(checkout(orderId, 'DEPOSIT', 5000));
    const { ipnBody } = fake.completeForm(formTokenOf(form), LYRA_CARDS.refused);
    const n = lyra.parseNotification(ipnBody, {});
    assert.equal(n.outcome, 'refused');
    assert.equal(n.detail, 'ACQ_001 51');
  });

  test('a tampered, unsigned, mis-keyed or malformed notification is refused', async () => {
    const orderId = randomUUID();
    const form = await lyra.startGuestPayment(checkout(orderId, 'DEPOSIT', 12345));
    const { ipnBody } = fake.completeForm(formTokenOf(form), LYRA_CARDS.accepted);
    const fields = new URLSearchParams(ipnBody);
    const answer = fields.get('kr-answer')!;
    const variant = (changes: Record<string, string | null>) => {
      const f = new URLSearchParams(ipnBody);
      for (const [k, v] of Object.entries(changes)) {
        if (v === null) f.delete(k);
        else f.set(k, v);
      }
      return f.toString();
    };
    const bad = {
      'a changed amount': variant({ 'kr-answer': answer.replace('"amount":12345', '"amount":1') }),
      'no signature': variant({ 'kr-hash': null }),
      'a signature by the HMAC key': variant({ 'kr-hash': signAnswer(DEMO_SHOP.hmacKey, answer) }),
      'a browser-return key': variant({ 'kr-hash-key': 'sha256_hmac' }),
      'another algorithm': variant({ 'kr-hash-algorithm': 'sha1' }),
      'a short hash': variant({ 'kr-hash': 'abc' }),
      'not JSON, yet signed': variant({ 'kr-answer': 'nope', 'kr-hash': signAnswer(DEMO_SHOP.password, 'nope') }),
      'no order, yet signed': variant({ 'kr-answer': '{}', 'kr-hash': signAnswer(DEMO_SHOP.password, '{}') }),
      'an empty body': '',
    };
    for (const [why, body] of Object.entries(bad)) {
      assert.throws(() => lyra.parseNotification(body, {}), InvalidNotificationError, why);
    }
    assert.equal(answer.includes('"amount":12345'), true, 'the tampering above changed something');
  });

  test('an answer whose slashes came escaped (\\/) still verifies, as in Lyra plugins', async () => {
    const orderId = randomUUID();
    const form = await lyra.startGuestPayment(checkout(orderId, 'DEPOSIT', 100));
    const { ipnBody } = fake.completeForm(formTokenOf(form), LYRA_CARDS.accepted);
    const fields = new URLSearchParams(ipnBody);
    const answer = fields.get('kr-answer')!;
    assert.ok(answer.includes('V4/Payment'));
    fields.set('kr-answer', answer.replaceAll('/', '\\/'));
    assert.equal(lyra.parseNotification(fields.toString(), {}).outcome, 'paid');
  });

  test('the fake posts the signed form to the IPN URL and retries until it is taken', async () => {
    const received: string[] = [];
    const receiver = createHttpServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => {
        body += c;
      });
      req.on('end', () => {
        received.push(body);
        // The first attempt fails: the receiver is "down" once.
        if (received.length === 1) return res.writeHead(503).end();
        const n = lyra.parseNotification(body, req.headers);
        res.writeHead(n.outcome === 'registered' ? 200 : 400).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const orderId = randomUUID();
      const { port } = receiver.address() as { port: number };
      const input = { ...checkout(orderId, 'IMPRINT'), notifyUrl: `http://127.0.0.1:${port}/ipn/lyra/` };
      const form = await lyra.startGuestPayment(input);
      const delivery = await fake.completeForm(formTokenOf(form), LYRA_CARDS.accepted).notify();
      assert.deepEqual(delivery, { attempts: 2, delivered: true, failures: ['HTTP 503'] });
      assert.equal(received[0], received[1], 'the same signed form, resent');
      assert.ok(received[0]!.startsWith('kr-hash-key=password&'));
    } finally {
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });

  test('the browser return verifies with the HMAC key only, never the password', async () => {
    const orderId = randomUUID();
    const form = await lyra.startGuestPayment(checkout(orderId, 'DEPOSIT', 100));
    const { ipnBody } = fake.completeForm(formTokenOf(form), LYRA_CARDS.accepted);
    const answer = new URLSearchParams(ipnBody).get('kr-answer')!;
    const back = (key: string) =>
      new URLSearchParams({
        'kr-hash-key': 'sha256_hmac',
        'kr-hash-algorithm': 'sha256_hmac',
        'kr-answer': answer,
        'kr-answer-type': 'V4/Payment',
        'kr-hash': signAnswer(key, answer),
      }).toString();
    assert.equal(verifyBrowserReturn(back(DEMO_SHOP.hmacKey), DEMO_SHOP.hmacKey).outcome, 'paid');
    assert.throws(() => verifyBrowserReturn(back(DEMO_SHOP.password), DEMO_SHOP.hmacKey), InvalidNotificationError);
    assert.throws(() => lyra.parseNotification(back(DEMO_SHOP.hmacKey), {}), InvalidNotificationError);
  });
});

describe('Lyra adapter: holds, captures, releases, refunds', () => {
  withLyraFake();

  test('a silent hold is a SILENT payment with manual validation, keyed in its metadata', async () => {
    const orderId = randomUUID();
    const hold = await holdOf(orderId, 30000);
    const sent = fake.calls.findLast((c) => c.service === 'Charge/CreatePayment')!.body;
    assert.equal(sent.formAction, 'SILENT');
    assert.deepEqual((sent.transactionOptions as { cardOptions: unknown }).cardOptions, {
      manualValidation: 'YES',
      captureDelay: 0,
      paymentSource: 'EC',
    });
    assert.equal(fake.store.get(hold.transactionId).detailedStatus, 'AUTHORISED_TO_VALIDATE');

    const order = await lyra.getOrder(orderId);
    assert.equal(order.keysKept, false);
    const t = order.transactions.find((x) => x.id === hold.transactionId)!;
    assert.deepEqual(
      { kind: t.kind, status: t.status, amount: t.amount, captured: t.capturedAmount, keys: t.keys },
      { kind: 'hold', status: 'authorised', amount: 30000, captured: 0, keys: [hold.idempotencyKey] },
    );
    assert.equal(order.transactions.find((x) => x.kind === 'verification')?.status, 'accepted');
  });

  test('a full capture validates without lowering; asked again, it is already done', async () => {
    const orderId = randomUUID();
    const hold = await holdOf(orderId, 30000);
    const before = fake.calls.length;
    const key = randomUUID();
    await lyra.capture({ ...hold, idempotencyKey: key, amountCents: 30000 });
    const services = fake.calls.slice(before).map((c) => c.service);
    assert.deepEqual(services, ['Transaction/Get', 'Transaction/Validate']);
    assert.match(String(fake.calls.at(-1)!.body.comment), new RegExp(key));
    assert.equal(fake.store.get(hold.transactionId).detailedStatus, 'AUTHORISED');

    const again = await lyra.capture({ ...hold, amountCents: 30000 });
    assert.equal(again.transactionId, hold.transactionId);
    assert.equal(fake.calls.at(-1)!.service, 'Transaction/Get', 'no second Validate');
    const t = (await lyra.getOrder(orderId)).transactions.find((x) => x.id === hold.transactionId)!;
    assert.deepEqual([t.status, t.capturedAmount], ['captured', 30000]);
  });

  test('a partial capture lowers the hold (Update) before validating', async () => {
    const orderId = randomUUID();
    const hold = await holdOf(orderId, 30000);
    const before = fake.calls.length;
    await lyra.capture({ ...hold, amountCents: 12000 });
    const sent = fake.calls.slice(before);
    assert.deepEqual(
      sent.map((c) => c.service),
      ['Transaction/Get', 'Transaction/Update', 'Transaction/Validate'],
    );
    assert.deepEqual(sent[1]!.body.cardUpdate, { amount: 12000, currency: 'EUR' });
    const t = (await lyra.getOrder(orderId)).transactions.find((x) => x.id === hold.transactionId)!;
    assert.deepEqual([t.status, t.amount, t.capturedAmount], ['captured', 12000, 12000]);
  });

  test('a capture above the hold is refused before anything is sent', async () => {
    const orderId = randomUUID();
    const hold = await holdOf(orderId, 30000);
    const err = await rejection(lyra.capture({ ...hold, amountCents: 30001 }));
    assert.equal(err.kind, 'refused');
    assert.equal(fake.calls.at(-1)!.service, 'Transaction/Get');
    assert.equal(fake.store.get(hold.transactionId).detailedStatus, 'AUTHORISED_TO_VALIDATE');
  });

  test('a release cancels the hold', async () => {
    const orderId = randomUUID();
    const hold = await holdOf(orderId, 30000);
    await lyra.release(hold);
    assert.equal(fake.calls.at(-1)!.service, 'Transaction/Cancel');
    const t = (await lyra.getOrder(orderId)).transactions.find((x) => x.id === hold.transactionId)!;
    assert.deepEqual([t.status, t.capturedAmount], ['cancelled', 0]);
    // Capturing what was released: Lyra is not asked to validate.
    assert.equal((await rejection(lyra.capture({ ...hold, amountCents: 30000 }))).kind, 'refused');
  });

  test('voiding a registration cancels its token; the order then shows it cancelled', async () => {
    const orderId = randomUUID();
    await registerCard(orderId);
    const verification = (await lyra.getOrder(orderId)).transactions[0]!;
    assert.equal(verification.status, 'accepted');
    await lyra.void(call(orderId, verification.id));
    assert.equal(fake.calls.at(-1)!.service, 'Token/Cancel');
    assert.equal((await lyra.getOrder(orderId)).transactions[0]!.status, 'cancelled');
  });

  async function paidDeposit(amountCents: number) {
    const orderId = randomUUID();
    const form = await lyra.startGuestPayment(checkout(orderId, 'DEPOSIT', amountCents));
    const { uuid } = fake.completeForm(formTokenOf(form), LYRA_CARDS.accepted);
    return { orderId, uuid };
  }

  test('a full refund of a captured payment is a new CREDIT transaction; the payment is refunded', async () => {
    const { orderId, uuid } = await paidDeposit(20000);
    fake.store.runBatch();
    const refund = await lyra.refund({ ...call(orderId, uuid), amountCents: 20000 });
    assert.notEqual(refund.transactionId, uuid);
    assert.equal(fake.calls.at(-1)!.body.resolutionMode, 'AUTO');
    const order = await lyra.getOrder(orderId);
    const payment = order.transactions.find((t) => t.id === uuid)!;
    const credit = order.transactions.find((t) => t.id === refund.transactionId)!;
    assert.deepEqual([payment.status, payment.capturedAmount, payment.refundedAmount], ['refunded', 20000, 20000]);
    assert.deepEqual([credit.kind, credit.status, credit.amount, credit.parentId], ['refund', 'refunded', 20000, uuid]);
  });

  test('a partial refund leaves the payment captured with what went back counted', async () => {
    const { orderId, uuid } = await paidDeposit(20000);
    fake.store.runBatch();
    await lyra.refund({ ...call(orderId, uuid), amountCents: 5000 });
    const payment = (await lyra.getOrder(orderId)).transactions.find((t) => t.id === uuid)!;
    assert.deepEqual([payment.status, payment.capturedAmount, payment.refundedAmount], ['captured', 20000, 5000]);
    // More than what is left is refused by Lyra: a technical answer, nothing moved.
    const err = await rejection(lyra.refund({ ...call(orderId, uuid), amountCents: 15001 }));
    assert.equal(err.kind, 'technical');
  });

  test('a refund the same day, before the bank has the payment, cancels it', async () => {
    const { orderId, uuid } = await paidDeposit(20000);
    const refund = await lyra.refund({ ...call(orderId, uuid), amountCents: 20000 });
    assert.equal(refund.transactionId, uuid);
    const payment = (await lyra.getOrder(orderId)).transactions.find((t) => t.id === uuid)!;
    assert.deepEqual([payment.status, payment.capturedAmount], ['cancelled', 0]);
  });

  test('a transaction Lyra has not settled, or in a state unknown here, is read as such beside the others', async () => {
    const orderId = randomUUID();
    const hold = await holdOf(orderId, 30000);
    const other = await holdOf(orderId, 1000);
    for (const [state, status] of [
      ['UNDER_VERIFICATION', 'in_flight'],
      ['WAITING_AUTHORISATION', 'in_flight'],
      ['SOMETHING_NEW', 'unknown'],
    ] as const) {
      fake.store.get(hold.transactionId).detailedStatus = state;
      const order = await lyra.getOrder(orderId);
      const read = order.transactions.find((t) => t.id === hold.transactionId);
      assert.deepEqual([read?.status, read?.providerStatus, read?.capturedAmount], [status, state, 0], state);
      // The other transaction of the order is read whole: only verdicts on this one wait.
      const kept = order.transactions.find((t) => t.id === other.transactionId);
      assert.deepEqual([kept?.status, kept?.providerStatus], ['authorised', 'AUTHORISED_TO_VALIDATE'], state);
    }
  });

  test('a registration whose token Lyra cannot tell about now is unknown, and only it', async () => {
    const orderId = randomUUID();
    const hold = await holdOf(orderId, 30000);
    fake.failNext('Token/Get', 'technical');
    const order = await lyra.getOrder(orderId);
    const verification = order.transactions.find((t) => t.kind === 'verification');
    assert.equal(verification?.status, 'unknown');
    assert.equal(order.transactions.find((t) => t.id === hold.transactionId)?.status, 'authorised');
    // Once Lyra answers, the registration reads as it is.
    assert.equal(
      (await lyra.getOrder(orderId)).transactions.find((t) => t.kind === 'verification')?.status,
      'accepted',
    );
  });

  test('an order Lyra has no transaction of is an empty order, not an error', async () => {
    assert.deepEqual(await lyra.getOrder(randomUUID()).then((o) => o.transactions), []);
  });
});

describe('Lyra adapter: refusals and failures', () => {
  withLyraFake();

  test('a hold the bank refuses (UNPAID inside SUCCESS, ACQ_001) is refused', async () => {
    const orderId = randomUUID();
    const token = await registerCard(orderId, LYRA_CARDS.refusedLater);
    const err = await rejection(lyra.silentHold({ ...call(orderId), cardToken: token, amountCents: 30000 }));
    assert.equal(err.kind, 'refused');
    assert.match(err.message, /ACQ_001/);
  });

  test('ACQ_999 inside a transaction is technical, not a refusal', async () => {
    const orderId = randomUUID();
    const token = await registerCard(orderId, LYRA_CARDS.technicalError);
    const err = await rejection(lyra.silentHold({ ...call(orderId), cardToken: token, amountCents: 30000 }));
    assert.equal(err.kind, 'technical');
  });

  test('an ERROR envelope is technical and changes nothing', async () => {
    const orderId = randomUUID();
    const hold = await holdOf(orderId, 30000);
    fake.failNext('Transaction/Validate', 'technical');
    assert.equal((await rejection(lyra.capture({ ...hold, amountCents: 30000 }))).kind, 'technical');
    assert.equal(fake.store.get(hold.transactionId).detailedStatus, 'AUTHORISED_TO_VALIDATE');
  });

  test('a token this account does not know (PSP_030) is refused: the card must be registered again', async () => {
    const err = await rejection(
      lyra.silentHold({ ...call(randomUUID()), cardToken: 'f'.repeat(32), amountCents: 100 }),
    );
    assert.equal(err.kind, 'refused');
    assert.match(err.message, /PSP_030/);
  });

  test('no answer in time, a dropped connection or an answer that does not parse: unknown', async () => {
    const quick = lyraProvider(account(), { timeoutMs: 300 });
    for (const fault of ['hang', 'drop', 'garbage'] as const) {
      const orderId = randomUUID();
      const hold = await holdOf(orderId, 30000);
      fake.failNext('Transaction/Cancel', fault);
      const err = await rejection(quick.release(hold));
      assert.equal(err.kind, 'unknown', fault);
    }
  });

  test("in doubt, then settled by Lyra's order view: a capture done, a release not done", async () => {
    const orderId = randomUUID();
    const hold = await holdOf(orderId, 30000);
    // The capture reaches Lyra and is done; its answer is lost.
    fake.failNext('Transaction/Validate', 'lose');
    const capture = { ...hold, idempotencyKey: randomUUID(), amountCents: 30000 };
    assert.equal((await rejection(lyra.capture(capture))).kind, 'unknown');
    const entry = (kind: 'capture' | 'release', key: string, id: string) => ({
      kind,
      provider: 'lyra',
      amount: 30000,
      idempotency_key: key,
      provider_transaction_id: id,
      created_at: new Date(),
    });
    const known = { known: new Set([hold.transactionId]), settled: [] };
    assert.deepEqual(
      verdictFromOrder(
        entry('capture', capture.idempotencyKey, hold.transactionId),
        await lyra.getOrder(orderId),
        known,
      ),
      { kind: 'done', transactionId: hold.transactionId, status: 'AUTHORISED' },
    );

    // A release that never reached the hold: the order shows it still held.
    const other = randomUUID();
    const second = await holdOf(other, 30000);
    fake.failNext('Transaction/Cancel', 'hang');
    const quick = lyraProvider(account(), { timeoutMs: 300 });
    const release = { ...second, idempotencyKey: randomUUID() };
    assert.equal((await rejection(quick.release(release))).kind, 'unknown');
    assert.deepEqual(
      verdictFromOrder(
        entry('release', release.idempotencyKey, second.transactionId),
        await lyra.getOrder(other),
        known,
      ),
      { kind: 'not_done' },
    );
  });

  test('an answer without the envelope (a 503, a 500) is unknown: the call may have been served', async () => {
    const orderId = randomUUID();
    const hold = await holdOf(orderId, 30000);
    fake.failNext('Transaction/Cancel', 'busy');
    assert.equal((await rejection(lyra.release(hold))).kind, 'unknown');
    fake.failNext('Transaction/Cancel', 'crash');
    assert.equal((await rejection(lyra.release(hold))).kind, 'unknown');
    assert.equal(fake.store.get(hold.transactionId).detailedStatus, 'AUTHORISED_TO_VALIDATE');
  });

  test('a read that gets no answer is unavailable: it changed nothing', async () => {
    const quick = lyraProvider(account(), { timeoutMs: 300 });
    fake.failNext('Order/Get', 'hang');
    assert.equal((await rejection(quick.getOrder(randomUUID()))).kind, 'unavailable');
  });

  test('bad credentials are technical (HTTP 401) for a read and a money call', async () => {
    const wrong = lyraProvider(account({ password: 'testpassword_WRONG' }));
    const before = fake.calls.length;
    assert.equal((await rejection(wrong.getOrder(randomUUID()))).kind, 'technical');
    const hold = wrong.silentHold({ ...call(randomUUID()), cardToken: 'f'.repeat(32), amountCents: 100 });
    assert.equal((await rejection(hold)).kind, 'technical');
    assert.equal(fake.calls.length, before, 'the fake served nothing without credentials');
  });

  test('the credentials check echoes through SDKTest; a wrong password or host says so', async () => {
    await checkLyraCredentials(account());
    assert.equal(fake.calls.at(-1)!.service, 'Charge/SDKTest');
    const wrong = await rejection(checkLyraCredentials(account({ password: 'testpassword_WRONG' })));
    assert.equal(wrong.kind, 'technical');
    assert.match(wrong.message, /INT_001/);
    const down = await rejection(checkLyraCredentials(account({ apiUrl: `http://127.0.0.1:${await closedPort()}/` })));
    assert.equal(down.kind, 'unavailable');
  });

  test('a provider not reached (connection refused) is unavailable', async () => {
    const down = lyraProvider(account({ apiUrl: `http://127.0.0.1:${await closedPort()}/api-payment/` }));
    const err = await rejection(down.release(call(randomUUID(), 'a'.repeat(32))));
    assert.equal(err.kind, 'unavailable');
  });
});

describe("the fake speaks Lyra's money semantics", () => {
  withLyraFake();

  async function paidDeposit(amountCents: number) {
    const orderId = randomUUID();
    const form = await lyra.startGuestPayment(checkout(orderId, 'DEPOSIT', amountCents));
    const { uuid } = fake.completeForm(formTokenOf(form), LYRA_CARDS.accepted);
    return { orderId, uuid };
  }

  test('a partial refund the same day lowers the payment itself; after the remittance it is a CREDIT', async () => {
    const { orderId, uuid } = await paidDeposit(20000);
    const same = await lyra.refund({ ...call(orderId, uuid), amountCents: 5000 });
    assert.equal(same.transactionId, uuid, 'no new transaction before the bank has it');
    let order = await lyra.getOrder(orderId);
    assert.equal(order.transactions.length, 1);
    assert.deepEqual(
      [order.transactions[0]!.status, order.transactions[0]!.amount, order.transactions[0]!.capturedAmount],
      ['captured', 15000, 15000],
    );
    fake.store.runBatch();
    const later = await lyra.refund({ ...call(orderId, uuid), amountCents: 3000 });
    assert.notEqual(later.transactionId, uuid);
    order = await lyra.getOrder(orderId);
    const credit = order.transactions.find((t) => t.id === later.transactionId)!;
    assert.deepEqual([credit.kind, credit.parentId, credit.amount], ['refund', uuid, 3000]);
    const payment = order.transactions.find((t) => t.id === uuid)!;
    assert.deepEqual([payment.capturedAmount, payment.refundedAmount], [15000, 3000]);
  });

  test('Update lowers an authorised amount and never raises it', async () => {
    const hold = await holdOf(randomUUID(), 30000);
    fake.store.update(hold.transactionId, 20000, 'lower');
    assert.equal(fake.store.get(hold.transactionId).amount, 20000);
    assert.throws(() => fake.store.update(hold.transactionId, 25000, 'raise'), /INT_902|cardUpdate/);
  });

  test('a call can act and answer late, answer garbage, or show a status Lyra passed through', async () => {
    const quick = lyraProvider(account(), { timeoutMs: 300 });
    const first = await holdOf(randomUUID(), 30000);
    fake.failNext('Transaction/Cancel', 'slow', { delayMs: 600 });
    assert.equal((await rejection(quick.release(first))).kind, 'unknown');
    assert.equal(fake.store.get(first.transactionId).detailedStatus, 'CANCELLED', 'it acted');

    const second = await holdOf(randomUUID(), 30000);
    fake.failNext('Transaction/Cancel', 'mangled');
    assert.equal((await rejection(lyra.release(second))).kind, 'unknown');
    assert.equal(fake.store.get(second.transactionId).detailedStatus, 'CANCELLED', 'it acted');

    const third = await holdOf(randomUUID(), 30000);
    fake.failNext('Transaction/Cancel', { answerStatus: 'UNDER_VERIFICATION' });
    assert.equal((await rejection(lyra.release(third))).kind, 'unknown', 'in transit is in doubt');
    assert.equal(fake.store.get(third.transactionId).detailedStatus, 'CANCELLED');
  });

  test("another shop, or the shop's PRODUCTION mode, keeps its own transactions: an old order reads empty", async () => {
    const production = fake.addShop(DEMO_SHOP_PRODUCTION);
    const live = lyraProvider(
      account({
        mode: 'PRODUCTION',
        password: DEMO_SHOP_PRODUCTION.password,
        publicKey: DEMO_SHOP_PRODUCTION.publicKey,
        hmacKey: DEMO_SHOP_PRODUCTION.hmacKey,
      }),
    );
    const orderId = randomUUID();
    const hold = await holdOf(orderId, 30000);
    assert.deepEqual((await live.getOrder(orderId)).transactions, [], 'PSP_010 on the new account');
    assert.equal((await lyra.getOrder(orderId)).transactions.length, 2, 'still on the old account');
    const err = await rejection(live.release(hold));
    assert.match(err.message, /PSP_010/);
    assert.equal(fake.calls.at(-1)!.mode, 'PRODUCTION');
    assert.equal(production.transactions.size, 0);
  });
});

describe('Lyra brands', () => {
  test("the JS client lives on the account's static host, or the API host's /static/", () => {
    assert.equal(
      clientUrls({ apiUrl: 'https://api.systempay.fr/api-payment/' }).script,
      'https://api.systempay.fr/static/js/krypton-client/V4.0/stable/kr-payment-form.min.js',
    );
    assert.equal(
      clientUrls({ apiUrl: 'https://api.payzen.eu/api-payment', staticUrl: 'https://static.payzen.eu/static' }).script,
      'https://static.payzen.eu/static/js/krypton-client/V4.0/stable/kr-payment-form.min.js',
    );
  });
});

describe('Lyra amounts', () => {
  test('minor units per currency; an amount a currency cannot carry is refused', () => {
    assert.equal(toLyraAmount(12345, 'EUR'), 12345);
    assert.equal(toLyraAmount(120000, 'JPY'), 1200);
    assert.equal(toLyraAmount(120050, 'JPY'), undefined);
    assert.equal(toLyraAmount(1234, 'KWD'), 12340);
  });
});
