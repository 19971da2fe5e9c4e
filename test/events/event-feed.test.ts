import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { applyStatusChanges, type Queryable, recordIncident } from '../../src/db/index.ts';
import {
  auditResponses,
  createRequest,
  ENGINE,
  startTestApp,
  type TenantWithKey,
  type TestApp,
} from '../helpers/test-app.ts';

interface FeedEvent {
  id: number;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
}

describe(`event feed: GET /api/events/ and ?updated_after= (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const feed = async (query = '', tenant: TenantWithKey = t.tenant) => {
    const r = await t.call({ method: 'GET', url: `/api/events/${query}`, tenant });
    assert.equal(r.statusCode, 200, r.body);
    return { events: r.json() as FeedEvent[], link: r.headers.link as string | undefined };
  };

  /** The guest's payment started (NOT_INITIATED to PENDING), through the one status-change function, in `tx`. */
  const toPending = async (tx: Queryable, id: string) => {
    const applied = await applyStatusChanges(tx, [
      { id, from: ['NOT_INITIATED'], to: 'PENDING', actor: { source: 'guest', actor: null } },
    ]);
    assert.equal(applied.length, 1);
  };

  /**
   * The events of `uuid` once `count` of them are in the feed. On PostgreSQL the feed waits
   * for older transactions of the server to end, so it is awaited as a condition.
   */
  async function eventsOf(uuid: string, count: number, tenant: TenantWithKey = t.tenant): Promise<FeedEvent[]> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const all = (await feed('?limit=1000', tenant)).events.filter((e) => e.data.uuid === uuid);
      if (all.length >= count || Date.now() > deadline) return all;
      await new Promise((r) => setImmediate(r));
    }
  }

  test('a create is one event whose data is exactly the detail the API answers', async () => {
    const created = await createRequest(t, { reservation_ref: 'EV-1' });
    const [event, ...more] = await eventsOf(created.uuid, 1);
    assert.equal(more.length, 0);
    assert.ok(event);
    assert.equal(event.type, 'payment_request.not_initiated');
    assert.ok(Number.isInteger(event.id));
    const detail = (await t.call({ method: 'GET', url: `/api/payment-requests/${created.uuid}/` })).json();
    // The trigger saw the row the same statement wrote (a sibling CTE), in the API's shape.
    assert.deepEqual(event.data, detail);
    assert.equal(event.data.guest_phone, undefined);
  });

  test('a keyed create, a cancel and a delete each write their event, in order', async () => {
    const r = await t.call({
      method: 'POST',
      url: '/api/payment-requests/',
      headers: { 'idempotency-key': 'ev-keyed' },
      payload: {
        request_type: 'DEPOSIT',
        amount: 120.5,
        guest_email: 'a@example.com',
        guest_first_name: 'A',
        guest_last_name: 'B',
        reservation_ref: 'EV-2',
      },
    });
    assert.equal(r.statusCode, 201);
    const { uuid, reference } = r.json();
    assert.equal((await t.call({ method: 'POST', url: `/api/payment-requests/${uuid}/cancel/` })).statusCode, 200);
    assert.equal((await t.call({ method: 'DELETE', url: `/api/payment-requests/${uuid}/` })).statusCode, 200);
    const events = await eventsOf(uuid, 3);
    assert.deepEqual(
      events.map((e) => e.type),
      ['payment_request.not_initiated', 'payment_request.cancelled', 'payment_request.deleted'],
    );
    assert.ok((events[0]?.id ?? 0) < (events[1]?.id ?? 0) && (events[1]?.id ?? 0) < (events[2]?.id ?? 0));
    assert.equal(events[0]?.data.amount, 120.5);
    assert.equal(events[1]?.data.status, 'CANCELLED');
    assert.equal(events[1]?.data.order_cycle, 'CLOSED');
    // The request is gone: its last event says so with what was last known of it.
    assert.equal(events[2]?.data.status, 'DELETED');
    assert.equal(events[2]?.data.previous_status, 'CANCELLED');
    assert.equal(events[2]?.data.reference, reference);
  });

  test('after and limit page through the feed; Link names the next page; nothing repeats', async () => {
    let newest = '';
    for (let i = 0; i < 5; i++) newest = (await createRequest(t, { reservation_ref: `EV-PAGE-${i}` })).uuid;
    // Once the last create's event shows, every older one of this tenant does too, and nothing
    // else writes to this tenant meanwhile: the feed holds still while it is paged.
    await eventsOf(newest, 1);
    const all = (await feed('?limit=1000')).events;
    assert.ok(all.length >= 9);
    const seen: number[] = [];
    let query = '?limit=2';
    for (let page = 0; page < 50 && query; page++) {
      const { events, link } = await feed(query);
      seen.push(...events.map((e) => e.id));
      query = link ? new URL(/<([^>]+)>/.exec(link)?.[1] ?? '').search : '';
      if (link) assert.equal(events.length, 2);
    }
    assert.deepEqual(
      seen,
      all.map((e) => e.id),
    );
    const last = all[all.length - 1]?.id;
    assert.deepEqual((await feed(`?after=${last}`)).events, [], 'nothing after the last event');
    const fromThird = (await feed(`?after=${all[2]?.id}&limit=1000`)).events.map((e) => e.id);
    assert.deepEqual(
      fromThird,
      all.slice(3).map((e) => e.id),
    );
  });

  test('a tenant sees only its own events; bad parameters are a 422 that changes nothing', async () => {
    const other = await t.newTenant('Autre Hôtel');
    const mine = await createRequest(t, { reservation_ref: 'EV-MINE' });
    const theirs = await createRequest(t, { reservation_ref: 'EV-THEIRS' }, other);
    const otherFeed = await eventsOf(theirs.uuid, 1, other);
    assert.equal(otherFeed.length, 1);
    const everything = (await feed('?limit=1000', other)).events;
    assert.ok(everything.every((e) => e.data.uuid !== mine.uuid));
    for (const q of ['?after=abc', '?after=-1', '?limit=0', '?limit=1001']) {
      const r = await t.call({ method: 'GET', url: `/api/events/${q}` });
      assert.equal(r.statusCode, 422, q);
      assert.equal(r.json().code, 'validation_failed');
    }
    assert.equal((await t.call({ method: 'GET', url: '/api/events/', tenant: null })).statusCode, 401);
  });

  test('a change rolled back leaves no event: the event is written in its transaction', async () => {
    const created = await createRequest(t, { reservation_ref: 'EV-ROLLBACK' });
    await assert.rejects(
      t.db.transaction(async (tx) => {
        await toPending(tx, created.uuid);
        throw new Error('rolled back');
      }),
      /rolled back/,
    );
    const events = await eventsOf(created.uuid, 1);
    assert.deepEqual(
      events.map((e) => e.type),
      ['payment_request.not_initiated'],
    );
  });

  test('an event committed late by an older transaction is not skipped by a reader already past younger ones', {
    skip: ENGINE === 'postgres' ? false : 'PGlite has one connection: two transactions cannot interleave',
  }, async () => {
    const slow = await createRequest(t, { reservation_ref: 'EV-SLOW' });
    await eventsOf(slow.uuid, 1);
    const before = (await feed('?limit=1000')).events;
    const cursor = before[before.length - 1]?.id ?? 0;
    let commit: () => void = () => {};
    let inserted: () => void = () => {};
    const insertedOnce = new Promise<void>((r) => {
      inserted = r;
    });
    // An older transaction writes an event and stays open...
    const older = t.db.transaction(async (tx) => {
      await toPending(tx, slow.uuid);
      inserted();
      await new Promise<void>((r) => {
        commit = r;
      });
    });
    await insertedOnce;
    // ...while a younger one commits: its event waits until the older one ends.
    const young = await createRequest(t, { reservation_ref: 'EV-YOUNG' });
    assert.deepEqual((await feed(`?after=${cursor}`)).events, []);
    commit();
    await older;
    const deadline = Date.now() + 30_000;
    let after: FeedEvent[] = [];
    while (after.length < 2 && Date.now() < deadline) after = (await feed(`?after=${cursor}`)).events;
    assert.deepEqual(
      after.map((e) => [e.data.uuid, e.type]),
      [
        [slow.uuid, 'payment_request.pending'],
        [young.uuid, 'payment_request.not_initiated'],
      ],
    );
  });

  test('?updated_after= lists the requests changed since, oldest change first, paged by Link', async () => {
    const since = new Date(Date.now() - 1).toISOString();
    const a = await createRequest(t, { reservation_ref: 'UPD-A' });
    const b = await createRequest(t, { reservation_ref: 'UPD-B' });
    const c = await createRequest(t, { reservation_ref: 'UPD-C' });
    // a changes last: it moves to the end.
    assert.equal((await t.call({ method: 'POST', url: `/api/payment-requests/${a.uuid}/cancel/` })).statusCode, 200);
    const list = async (q: string) => t.call({ method: 'GET', url: `/api/payment-requests/${q}` });
    const first = await list(`?updated_after=${encodeURIComponent(since)}&limit=2`);
    assert.equal(first.statusCode, 200);
    const page1 = first.json().map((d: { uuid: string }) => d.uuid);
    assert.deepEqual(page1, [b.uuid, c.uuid]);
    const next = new URL(/<([^>]+)>/.exec(String(first.headers.link))?.[1] ?? '');
    const second = await list(next.search);
    assert.deepEqual(
      second.json().map((d: { uuid: string; status: string }) => [d.uuid, d.status]),
      [[a.uuid, 'CANCELLED']],
    );
    assert.equal(second.headers.link, undefined);
    const future = await list(`?updated_after=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`);
    assert.deepEqual(future.json(), []);
    assert.equal((await list('?updated_after=yesterday')).statusCode, 422);
  });

  test('the updated_after filter is served by an index', async () => {
    // A test table is tiny, where a scan is cheaper: forbid it to see which index the query can use.
    const text = await t.db.transaction(async (tx) => {
      await tx.query('SET LOCAL enable_seqscan = off');
      const plan = await tx.query<Record<string, string>>(
        `EXPLAIN SELECT id FROM payment_requests WHERE tenant_id = '${t.tenant.tenantId}'
          AND updated_at > now() ORDER BY updated_at, id LIMIT 10`,
      );
      return plan.rows.map((r) => Object.values(r).join(' ')).join('\n');
    });
    assert.match(text, /payment_requests_tenant_updated/);
  });

  test('every history row has one event, in the history order, of the type its change makes', async () => {
    // An incident too (money where it should not be), on a live request and on a deleted one.
    const live = await createRequest(t, { reservation_ref: 'EV-INCIDENT' });
    const gone = await createRequest(t, { reservation_ref: 'EV-INCIDENT-GONE' });
    assert.equal((await t.call({ method: 'DELETE', url: `/api/payment-requests/${gone.uuid}/` })).statusCode, 200);
    const ledger = await t.db.query<{ id: string }>(
      `INSERT INTO money_ledger (payment_request_id, tenant_id, kind, amount, currency, provider, idempotency_key, state,
                                 incident, source)
       SELECT id, $2, 'payment', 100, 'EUR', 'sandbox', 'incident-' || id, 'succeeded', 'unexpected_payment', 'ipn'
         FROM unnest($1::uuid[]) AS id RETURNING id::text`,
      [[live.uuid, gone.uuid], t.tenant.tenantId],
    );
    for (const [i, id] of [live.uuid, gone.uuid].entries()) {
      await recordIncident(t.db, {
        paymentRequestId: id,
        tenantId: t.tenant.tenantId,
        status: id === live.uuid ? 'NOT_INITIATED' : null,
        actor: { source: 'ipn', actor: 'sandbox' },
        ledgerId: ledger.rows[i]?.id as string,
        detail: { reason: 'unexpected_payment' },
      });
    }
    const pairs = await t.db.query<{
      request: string;
      history: string | null;
      event: string | null;
      data: Record<string, unknown> | null;
    }>(
      `WITH h AS (
         SELECT h.payment_request_id, row_number() OVER (PARTITION BY h.payment_request_id ORDER BY h.id) AS n,
                payment_request_event_type(h.from_status, h.to_status, l.kind, l.state) AS type
           FROM status_history h LEFT JOIN money_ledger l ON l.id = h.ledger_id WHERE h.tenant_id = $1
       ), e AS (
         SELECT payment_request_id, row_number() OVER (PARTITION BY payment_request_id ORDER BY id) AS n, type, data
           FROM events WHERE tenant_id = $1
       )
       SELECT coalesce(h.payment_request_id, e.payment_request_id)::text AS request, h.type AS history,
              e.type AS event, e.data
         FROM h FULL JOIN e ON e.payment_request_id = h.payment_request_id AND e.n = h.n`,
      [t.tenant.tenantId],
    );
    assert.ok(pairs.rows.length > 10, `${pairs.rows.length} history rows`);
    for (const p of pairs.rows) assert.equal(p.event, p.history, `request ${p.request}: history and events pair up`);
    const incidents = pairs.rows.filter((p) => p.event === 'payment_request.incident');
    assert.deepEqual(
      incidents.map((p) => [p.request, p.data?.status, (p.data?.incident as { reason?: string })?.reason]).sort(),
      [
        [gone.uuid, 'INCIDENT', 'unexpected_payment'],
        [live.uuid, 'NOT_INITIATED', 'unexpected_payment'],
      ].sort(),
      "an incident's event: the request as it is (or as its last event left it), and what happened",
    );
  });

  test('every response carried x-request-id and none was a 5xx', () => auditResponses(t));
});
