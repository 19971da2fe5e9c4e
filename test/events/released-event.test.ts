import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { migrate } from '../../src/db/index.ts';
import { createEndpoint } from '../../src/webhooks/index.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { auditResponses, createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

interface FeedEvent {
  id: number;
  type: string;
  data: Record<string, unknown>;
}

describe(`a released hold: payment_request.released, and the guest's page says so (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    auditResponses(t);
    await t.close();
  });

  /** The events of `uuid` once the last one is `last` (the feed waits for older transactions). */
  async function eventsUntil(uuid: string, last: string): Promise<FeedEvent[]> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const r = await t.call({ method: 'GET', url: '/api/events/?limit=1000' });
      assert.equal(r.statusCode, 200, r.body);
      const mine = (r.json() as FeedEvent[]).filter((e) => e.data.uuid === uuid);
      if (mine.at(-1)?.type === last) return mine;
      if (Date.now() > deadline) assert.fail(`no ${last} for ${uuid}: ${mine.map((e) => e.type).join(', ')}`);
      await new Promise((r) => setImmediate(r));
    }
  }

  /** An IMPRINT whose card is registered and held before arrival, in `language`. */
  async function heldImprint(language: string, amount = 95) {
    const r = await createRequest(t, { request_type: 'IMPRINT', amount, language });
    await t.app.payreq.notifications.apply('sandbox', {
      eventId: `evt-${randomUUID()}`,
      paymentRequestId: r.uuid,
      outcome: 'registered',
      transactionId: `tx-${randomUUID()}`,
      maskedPan: '424242XXXXXX4242',
      expiryMonth: 9,
      expiryYear: 2029,
      cardToken: 'tok_test',
    });
    await arrangeStatus(t.db, r.uuid, 'AUTHORISED_TO_VALIDATE');
    return r;
  }

  const post = async (uuid: string, action: string) => {
    const r = await t.call({ method: 'POST', url: `/api/payment-requests/${uuid}/${action}/` });
    assert.equal(r.statusCode, 200, r.body);
    return r.json() as { status: string };
  };

  test('a release is CANCELLED with the event payment_request.released; a cancel stays payment_request.cancelled', async () => {
    const held = await heldImprint('en');
    const hook = await createEndpoint(
      t.repos,
      t.app.payreq.secretKeys,
      { production: false, allowPrivate: true },
      { tenantId: t.tenant.tenantId, url: 'http://127.0.0.1:9/hook', events: ['payment_request.released'] },
    );
    const before = Date.now();
    assert.equal((await post(held.uuid, 'release')).status, 'CANCELLED', 'the status the contract names');
    // A PMS that polls tells a release from a cancellation by released_at: in the detail and the event.
    const answer = (await t.call({ method: 'GET', url: `/api/payment-requests/${held.uuid}/` })).json();
    assert.equal(answer.status, 'CANCELLED');
    assert.ok(
      answer.released_at && Date.parse(answer.released_at) >= before - 1000,
      `released_at ${answer.released_at}`,
    );
    const events = await eventsUntil(held.uuid, 'payment_request.released');
    const released = events.at(-1);
    assert.equal(released?.data.status, 'CANCELLED');
    assert.equal(released?.data.order_cycle, 'CLOSED');
    assert.equal(released?.data.released_at, answer.released_at);
    assert.ok(
      events.slice(0, -1).every((e) => e.data.released_at === null),
      'null until the release',
    );
    assert.ok(!events.some((e) => e.type === 'payment_request.cancelled'), 'not a cancellation as well');
    const delivered = await t.db.query<{ type: string }>(
      `SELECT e.type FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE d.endpoint_id = $1`,
      [hook.id],
    );
    assert.deepEqual(
      delivered.rows.map((r) => r.type),
      ['payment_request.released'],
      'an endpoint subscribed to the type gets it',
    );

    const unpaid = await createRequest(t, { request_type: 'IMPRINT' });
    await post(unpaid.uuid, 'cancel');
    const cancelled = await eventsUntil(unpaid.uuid, 'payment_request.cancelled');
    assert.equal(cancelled.at(-1)?.data.status, 'CANCELLED');
    assert.equal(cancelled.at(-1)?.data.released_at, null, 'a cancellation is no release');
    const cancelledDetail = await t.call({ method: 'GET', url: `/api/payment-requests/${unpaid.uuid}/` });
    assert.equal(cancelledDetail.json().status, 'CANCELLED');
    assert.equal(cancelledDetail.json().released_at, null);
  });

  test('the guest page of a released hold says the guarantee was released and nothing charged, in each language', async () => {
    const words = {
      fr: ['Garantie levée', 'L’établissement a levé la garantie de 95,00 € posée sur votre carte.'],
      en: [
        'Guarantee released',
        'The hotel has released the guarantee of €95.00 on your card. Nothing has been charged.',
      ],
      de: ['Garantie aufgehoben', 'Die Unterkunft hat die Garantie über 95,00 € auf Ihrer Karte aufgehoben.'],
    } as const;
    const cancelledWords = ['annulée par l’établissement', 'cancelled by the hotel', 'von der Unterkunft storniert'];
    for (const [language, [title, text]] of Object.entries(words)) {
      const held = await heldImprint(language);
      await post(held.uuid, 'release');
      for (const url of [`/payment/${held.uuid}/`, `/payment/${held.uuid}/result/`]) {
        const page = await t.call({ method: 'GET', url, tenant: null });
        assert.equal(page.statusCode, 200, url);
        const body = page.body.replace(/[\u00a0\u202f]/g, ' ');
        assert.ok(body.includes(`<h1>${title}</h1>`), `${language} ${url}: ${body}`);
        assert.ok(body.includes(text.replace(/[\u00a0\u202f]/g, ' ')), `${language} ${url}: ${body}`);
        assert.ok(body.includes('424242XXXXXX4242'), 'the card whose guarantee was released');
        for (const c of cancelledWords) assert.ok(!body.includes(c), `${language}: not "${c}"`);
      }
    }
    // A request cancelled before anything was held still reads as a cancellation.
    const unpaid = await createRequest(t, { language: 'en' });
    await post(unpaid.uuid, 'cancel');
    const page = await t.call({ method: 'GET', url: `/payment/${unpaid.uuid}/`, tenant: null });
    assert.ok(page.body.includes('<h1>Request cancelled</h1>'), page.body);
  });

  test('migration 0100: a hold released before it was written is given the time of its release', async () => {
    const held = await heldImprint('en');
    await post(held.uuid, 'release');
    const unpaid = await createRequest(t, { request_type: 'IMPRINT' });
    await post(unpaid.uuid, 'cancel');
    const history = await t.db.query<{ at: Date }>(
      `SELECT created_at AS at FROM status_history
        WHERE payment_request_id = $1 AND from_status = 'AUTHORISED_TO_VALIDATE' AND to_status = 'CANCELLED'`,
      [held.uuid],
    );
    await t.db.query('UPDATE payment_requests SET released_at = NULL WHERE id = ANY($1::uuid[])', [
      [held.uuid, unpaid.uuid],
    ]);
    await t.db.query(`DELETE FROM schema_migrations WHERE name = '0100_released_at.sql'`);
    assert.deepEqual(await migrate(t.db), ['0100_released_at.sql']);
    const rows = await t.db.query<{ id: string; released_at: Date | null }>(
      'SELECT id::text AS id, released_at FROM payment_requests WHERE id = ANY($1::uuid[])',
      [[held.uuid, unpaid.uuid]],
    );
    const byId = new Map(rows.rows.map((r) => [r.id, r.released_at?.getTime() ?? null]));
    assert.equal(byId.get(held.uuid), history.rows[0]?.at.getTime());
    assert.equal(byId.get(unpaid.uuid), null);
  });

  test('migration 0075: an endpoint subscribed to payment_request.cancelled is subscribed to released too', async () => {
    const tenant = await t.newTenant('Hôtel Abonné');
    const ids: string[] = [];
    for (const events of [
      ['payment_request.cancelled'],
      ['payment_request.captured'],
      [],
      ['payment_request.cancelled', 'payment_request.released'],
    ]) {
      const r = await t.db.query<{ id: string }>(
        `INSERT INTO webhook_endpoints (id, tenant_id, url, events, secret_sealed)
         VALUES ($1, $2, 'https://pms.example/hook', $3::text[], 'sealed') RETURNING id::text AS id`,
        [randomUUID(), tenant.tenantId, events],
      );
      ids.push(r.rows[0]?.id as string);
    }
    await t.db.query(`DELETE FROM schema_migrations WHERE name = '0075_released_event.sql'`);
    assert.deepEqual(await migrate(t.db), ['0075_released_event.sql']);
    const after = await t.db.query<{ id: string; events: string[] }>(
      'SELECT id::text AS id, events FROM webhook_endpoints WHERE id = ANY($1::uuid[])',
      [ids],
    );
    const byId = new Map(after.rows.map((r) => [r.id, r.events]));
    assert.deepEqual(
      ids.map((id) => byId.get(id)),
      [
        ['payment_request.cancelled', 'payment_request.released'],
        ['payment_request.captured'],
        [],
        ['payment_request.cancelled', 'payment_request.released'],
      ],
    );
  });
});
