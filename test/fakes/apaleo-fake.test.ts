import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type ApaleoFake, startApaleoFake } from './apaleo/apaleo-fake.ts';

// The Apaleo fake's own wire, met over HTTP as payreq meets Apaleo (sources in
// test/fakes/apaleo/apaleo-fake.ts): what a test of payreq relies on it to do.
describe('the Apaleo fake', () => {
  let apaleo: ApaleoFake;
  let token: string;
  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
  const tokenCall = (auth: string, grant = 'client_credentials') =>
    fetch(`${apaleo.url}/connect/token`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=${grant}`,
    });
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${apaleo.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(init.headers ?? {}) },
    });
  const pay = (folio: string, body: object, key?: string) =>
    api(`/finance/v1/folios/${folio}/payments`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: key ? { 'idempotency-key': key } : {},
    });

  before(async () => {
    apaleo = await startApaleoFake();
    apaleo.store.addClient('APP', 'secret');
    apaleo.store.addProperty('MUC');
    apaleo.store.addReservation({ id: 'ABC-1', propertyId: 'MUC' });
    apaleo.store.addReservation({ id: 'ABC-2', propertyId: 'MUC' }, { folio: false });
  });
  after(() => apaleo.close());

  test('a token for the client credentials by HTTP Basic; anything else is 400 invalid_client', async () => {
    const bad = await tokenCall(basic('APP', 'nope'));
    assert.equal(bad.status, 400);
    assert.deepEqual(await bad.json(), { error: 'invalid_client' });
    const grant = await tokenCall(basic('APP', 'secret'), 'password');
    assert.equal(grant.status, 400);
    const ok = await tokenCall(basic('APP', 'secret'));
    assert.equal(ok.status, 200);
    const body = (await ok.json()) as { access_token: string; expires_in: number; token_type: string };
    assert.equal(body.token_type, 'Bearer');
    assert.ok(body.expires_in > 0);
    token = body.access_token;
    assert.equal((await fetch(`${apaleo.url}/booking/v1/reservations/ABC-1`)).status, 401);
  });

  test('reservations and properties by id; an unknown one is 404 with messages', async () => {
    const r = await api('/booking/v1/reservations/ABC-1');
    assert.equal(r.status, 200);
    const resv = (await r.json()) as {
      property: { id: string };
      primaryGuest: { lastName: string };
      timeSlices: unknown[];
    };
    assert.equal(resv.property.id, 'MUC');
    assert.equal(resv.primaryGuest.lastName, 'Martin');
    assert.equal(resv.timeSlices.length, 3);
    const none = await api('/booking/v1/reservations/NOPE');
    assert.equal(none.status, 404);
    assert.ok(Array.isArray(((await none.json()) as { messages: unknown }).messages));
    assert.equal((await api('/inventory/v1/properties/MUC')).status, 200);
    assert.equal((await api('/inventory/v1/properties/BER')).status, 404);
  });

  test('folios by reservation (204 when none); payments posted once per Idempotency-Key, listed by receipt', async () => {
    assert.equal((await api('/finance/v1/folios?reservationIds=ABC-2')).status, 204);
    const list = (await (await api('/finance/v1/folios?reservationIds=ABC-1')).json()) as {
      folios: { id: string; type: string; isMainFolio: boolean }[];
    };
    assert.deepEqual(
      list.folios.map((f) => [f.type, f.isMainFolio]),
      [['Guest', true]],
    );
    const folio = list.folios[0]?.id ?? '';
    const body = { method: 'VisaCredit', amount: { amount: 12.5, currency: 'EUR' }, receipt: 'DEP-1/7' };
    const first = await pay(folio, body, 'k-1');
    assert.equal(first.status, 201);
    const again = await pay(folio, body, 'k-1');
    assert.deepEqual(await again.json(), await first.json(), 'replayed');
    assert.equal((await pay(folio, { ...body, receipt: 'other' }, 'k-1')).status, 422, 'a key is one request');
    assert.equal((await pay(folio, { ...body, amount: { amount: 1, currency: 'CHF' } })).status, 422);
    assert.equal((await pay(folio, { ...body, method: 'PspCash' })).status, 422);
    const payments = (await (await api(`/finance/v1/folios/${folio}/payments`)).json()) as {
      payments: { receipt: string; amount: { amount: number } }[];
    };
    assert.deepEqual(
      payments.payments.map((p) => [p.receipt, p.amount.amount]),
      [['DEP-1/7', 12.5]],
    );
    assert.equal((await api(`/finance/v1/folios/${folio}/refunds`)).status, 204);
  });

  test('faults: a status with Retry-After, a dropped call, an answer lost after the work, down', async () => {
    const folio = apaleo.store.mainFolio('ABC-1')?.id ?? '';
    apaleo.failNext('post-payment', { status: 429, retryAfter: '3' });
    const throttled = await pay(folio, { method: 'Cash', amount: { amount: 1, currency: 'EUR' }, receipt: 'r-429' });
    assert.equal(throttled.status, 429);
    assert.equal(throttled.headers.get('retry-after'), '3');
    apaleo.failNext('post-payment', 'drop');
    await assert.rejects(pay(folio, { method: 'Cash', amount: { amount: 1, currency: 'EUR' }, receipt: 'r-drop' }));
    apaleo.failNext('post-payment', 'lose');
    await assert.rejects(pay(folio, { method: 'Cash', amount: { amount: 2, currency: 'EUR' }, receipt: 'r-lost' }));
    const receipts = apaleo.store.mainFolio('ABC-1')?.payments.map((p) => p.receipt);
    assert.deepEqual(receipts, ['DEP-1/7', 'r-lost'], 'the lost answer’s payment was made, the dropped one not');
    apaleo.setDown(true);
    await assert.rejects(api('/booking/v1/reservations/ABC-1'));
    apaleo.setDown(false);
    apaleo.store.revokeAllTokens();
    assert.equal((await api('/booking/v1/reservations/ABC-1')).status, 401);
  });

  test('webhooks: a subscription after its health check, deliveries with ids only', async () => {
    token = ((await (await tokenCall(basic('APP', 'secret'))).json()) as { access_token: string }).access_token;
    const seen: Record<string, unknown>[] = [];
    let healthy = false;
    const receiver: Server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => {
        raw += c;
      });
      req.on('end', () => {
        seen.push(JSON.parse(raw) as Record<string, unknown>);
        res.writeHead(healthy ? 200 : 500).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const endpointUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const subscribe = () =>
        api('/v1/subscriptions', {
          method: 'POST',
          body: JSON.stringify({ endpointUrl, events: ['reservation/created'], propertyIds: ['MUC'] }),
        });
      assert.equal((await subscribe()).status, 422, 'an endpoint failing its health check is not subscribed');
      healthy = true;
      const ok = await subscribe();
      assert.equal(ok.status, 201);
      assert.equal(seen.at(-1)?.type, 'healthcheck');
      const [delivery] = await apaleo.deliver('created', 'ABC-1', { eventId: 'ev-1' });
      assert.equal(delivery?.status, 200);
      assert.deepEqual(
        { ...seen.at(-1), timestamp: 0 },
        {
          topic: 'Reservation',
          type: 'created',
          id: 'ev-1',
          accountId: 'FAKE',
          propertyId: 'MUC',
          timestamp: 0,
          data: { entityId: 'ABC-1' },
        },
      );
      assert.deepEqual(await apaleo.deliver('canceled', 'ABC-1'), [], 'not subscribed to cancellations');
      const { id } = (await ok.json()) as { id: string };
      assert.equal((await api(`/v1/subscriptions/${id}`, { method: 'DELETE' })).status, 204);
      assert.equal(apaleo.store.subscriptions.size, 0);
    } finally {
      receiver.close();
    }
  });
});
