import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { Status } from '../../src/domain/index.ts';
import { expirePaymentRequests, expiryRepository } from '../../src/jobs/index.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

const NOW = new Date('2026-12-10T12:00:00.000Z');
const at = (ms: number) => new Date(NOW.getTime() + ms);

describe(`expire_payment_requests with controlled time (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());
  // Each test sees only its own requests as due.
  beforeEach(() => t.db.query("UPDATE payment_requests SET status = 'CANCELLED', pending_action = NULL"));

  const run = (now = NOW, batchSize?: number) =>
    expirePaymentRequests({ expiry: expiryRepository(t.db) }, now, { batchSize });

  /** A request in `status` whose hold or link ends at `end`. */
  async function request(status: Status, end: { hold?: Date; link?: Date }, pending: string | null = null) {
    const c = await createRequest(t);
    await arrangeStatus(t.db, c.uuid, status);
    await t.db.query(
      `UPDATE payment_requests SET hold_expires_at = $2, link_expires_at = COALESCE($3, link_expires_at),
         pending_action = $4 WHERE id = $1`,
      [c.uuid, end.hold ?? null, end.link ?? null, pending],
    );
    return c.uuid;
  }
  const statusOf = async (id: string) =>
    (await t.db.query<{ status: string }>('SELECT status FROM payment_requests WHERE id = $1', [id])).rows[0]?.status;
  const history = async (id: string) =>
    (
      await t.db.query<{
        from_status: string;
        to_status: string;
        source: string;
        actor: string;
        detail: { trigger: string };
      }>(
        'SELECT from_status, to_status, source, actor, detail FROM status_history WHERE payment_request_id = $1 AND to_status = $2 ORDER BY id',
        [id, 'EXPIRED'],
      )
    ).rows;

  test('a hold whose end is now or past expires; one ending a millisecond later stays', async () => {
    const past = await request('AUTHORISED_TO_VALIDATE', { hold: at(-3600_000) });
    const exact = await request('AUTHORISED_TO_VALIDATE', { hold: NOW });
    const later = await request('AUTHORISED_TO_VALIDATE', { hold: at(1) });
    const r = await run();
    assert.deepEqual({ holds: r.holds_expired, links: r.links_expired }, { holds: 2, links: 0 });
    assert.equal(await statusOf(past), 'EXPIRED');
    assert.equal(await statusOf(exact), 'EXPIRED');
    assert.equal(await statusOf(later), 'AUTHORISED_TO_VALIDATE');
    const h = await history(exact);
    assert.equal(h.length, 1);
    assert.deepEqual(
      { from: h[0]?.from_status, source: h[0]?.source, actor: h[0]?.actor, trigger: h[0]?.detail.trigger },
      { from: 'AUTHORISED_TO_VALIDATE', source: 'job', actor: 'expire_payment_requests', trigger: 'hold_expired' },
    );
    // A millisecond later the last one's end has come.
    assert.equal((await run(at(1))).holds_expired, 1);
    assert.equal(await statusOf(later), 'EXPIRED');
  });

  test('links past their lifetime expire from NOT_INITIATED, PENDING and ERROR; boundary exact', async () => {
    const open = await Promise.all(
      (['NOT_INITIATED', 'PENDING', 'ERROR'] as const).map((s) => request(s, { link: at(-1) })),
    );
    const exact = await request('NOT_INITIATED', { link: NOW });
    const later = await request('PENDING', { link: at(1) });
    const r = await run();
    assert.deepEqual({ holds: r.holds_expired, links: r.links_expired }, { holds: 0, links: 4 });
    for (const id of [...open, exact]) {
      assert.equal(await statusOf(id), 'EXPIRED');
      const h = await history(id);
      assert.equal(h.length, 1);
      assert.equal(h[0]?.detail.trigger, 'link_expired');
      assert.equal(h[0]?.actor, 'expire_payment_requests');
    }
    assert.equal((await history(open[2] as string))[0]?.from_status, 'ERROR');
    assert.equal(await statusOf(later), 'PENDING');
  });

  test('a row with a pending action is left alone, and expires once the action gave it back', async () => {
    const capturing = await request('AUTHORISED_TO_VALIDATE', { hold: at(-1) }, 'capture');
    assert.equal((await run()).holds_expired, 0);
    assert.equal(await statusOf(capturing), 'AUTHORISED_TO_VALIDATE');
    assert.equal((await history(capturing)).length, 0);
    await t.db.query('UPDATE payment_requests SET pending_action = NULL WHERE id = $1', [capturing]);
    assert.equal((await run()).holds_expired, 1);
  });

  test('terminal and other statuses are never touched, whatever their deadlines', async () => {
    const ids: string[] = [];
    for (const s of ['AUTHORISED', 'CAPTURED', 'REFUSED', 'CANCELLED', 'REFUNDED', 'EXPIRED'] as const) {
      ids.push(await request(s, { hold: at(-1), link: at(-1) }));
    }
    const r = await run();
    assert.deepEqual({ holds: r.holds_expired, links: r.links_expired }, { holds: 0, links: 0 });
    for (const [i, s] of ['AUTHORISED', 'CAPTURED', 'REFUSED', 'CANCELLED', 'REFUNDED', 'EXPIRED'].entries()) {
      assert.equal(await statusOf(ids[i] as string), s);
    }
  });

  test('batches drain a backlog; a second run does nothing and writes no history', async () => {
    const ids = await Promise.all(Array.from({ length: 7 }, () => request('NOT_INITIATED', { link: at(-1) })));
    assert.equal((await run(NOW, 3)).links_expired, 7);
    const again = await run(NOW, 3);
    assert.deepEqual({ holds: again.holds_expired, links: again.links_expired }, { holds: 0, links: 0 });
    for (const id of ids) assert.equal((await history(id)).length, 1);
  });

  test('two runs at once move each row once', async () => {
    const ids = await Promise.all(Array.from({ length: 6 }, () => request('PENDING', { link: at(-1) })));
    const [a, b] = await Promise.all([run(NOW, 2), run(NOW, 2)]);
    assert.equal((a?.links_expired ?? 0) + (b?.links_expired ?? 0), 6);
    for (const id of ids) assert.equal((await history(id)).length, 1);
  });
});
