import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { HoldRenewalsRepository } from '../../src/holds/index.ts';
import { holdRenewalsRepository, renewHolds } from '../../src/holds/index.ts';
import { dateIn, SCHEDULED_JOBS } from '../../src/jobs/index.ts';
import { eventually } from '../helpers/sandbox-checkout.ts';
import { auditResponses, createRequest, ENGINE } from '../helpers/test-app.ts';
import {
  type ContractDriver,
  deliver,
  lyraDriver,
  type Notification,
  PROVIDER_TIMEOUT_MS,
  sandboxDriver,
  stripeDriver,
} from './contract-drivers.ts';

/** The daily job's day, and the check-in two days later it holds for. */
const D = '2026-12-10';
const CHECKIN = '2026-12-12';

type Detail = Record<string, unknown> & { status: string };

/**
 * One contract, every provider: what payreq promises about money holds whichever provider
 * serves the hotel. Each provider runs the same tests through the service's HTTP API, its money
 * runner (capture, release, refund), its daily job (the deferred hold) and its reconcile; a
 * driver per provider (./contract-drivers.ts) plays the guest on the provider's form and makes
 * the provider fail. After each money test the provider's own view of the order must agree
 * with payreq's books (reconcile's check).
 */
for (const start of [sandboxDriver, lyraDriver, stripeDriver]) {
  describe(`provider contract: ${start.name.replace('Driver', '')} (${ENGINE})`, { timeout: 300_000 }, () => {
    let p: ContractDriver;
    before(async () => {
      p = await start();
    });
    after(async () => {
      if (p) {
        auditResponses(p.t, [502, 504]);
        await p.close();
      }
    });

    const detail = async (id: string): Promise<Detail> => {
      const r = await p.t.call({ method: 'GET', url: `/api/payment-requests/${id}/` });
      assert.equal(r.statusCode, 200, r.body);
      return r.json();
    };
    const action = (id: string, what: 'capture' | 'release', payload?: Record<string, unknown>) =>
      p.t.call({ method: 'POST', url: `/api/payment-requests/${id}/${what}/`, ...(payload ? { payload } : {}) });
    const tenant = () => ({ tenantId: p.t.tenant.tenantId, timezone: 'Europe/Paris', linkLifetimeDays: 30 });
    const admin = { source: 'admin' as const, actor: 'user:contract' };
    /** The provider's view of the order agrees with payreq's books. */
    const booksAgree = async (id: string) => assert.equal(await p.t.app.payreq.reconciler.checkRequest(id), undefined);
    const delivered = async (n: Notification, expected = 200) => {
      const r = await deliver(p.t, n);
      assert.equal(r.status, expected, JSON.stringify(r));
      return r;
    };

    async function paidDeposit(amount = 120.5) {
      const c = await createRequest(p.t, { request_type: 'DEPOSIT', amount });
      const n = await p.guestPays(c.uuid, c.payment_link, p.cards.accepted);
      assert.equal((await detail(c.uuid)).status, 'PENDING', 'nothing moves before the notification');
      await delivered(n);
      return { ...c, n };
    }

    async function registeredImprint(amount = 150) {
      const c = await createRequest(p.t, { request_type: 'IMPRINT', amount, reservation_data: { checkin: CHECKIN } });
      const n = await p.guestPays(c.uuid, c.payment_link, p.cards.accepted);
      await delivered(n);
      assert.equal((await detail(c.uuid)).status, 'AUTHORISED');
      return c;
    }

    /** The daily job, two days before check-in, as the scheduler runs it. */
    const dailyJob = () =>
      SCHEDULED_JOBS.create_deferred_payments!(p.t.app.payreq, new Date(`${D}T10:00:00Z`), 'Europe/Paris');

    async function heldImprint(amount = 150) {
      const c = await registeredImprint(amount);
      await dailyJob();
      const d = await detail(c.uuid);
      assert.equal(d.status, 'AUTHORISED_TO_VALIDATE', JSON.stringify(d));
      return c;
    }

    test('DEPOSIT: the guest pays on the provider form; CAPTURED for the amount once notified; the same notification again is a duplicate', async () => {
      const c = await paidDeposit(120.5);
      const d = await detail(c.uuid);
      assert.equal(d.status, 'CAPTURED');
      assert.equal(d.amount_captured, 120.5);
      assert.match(String(d.masked_pan), p.maskedPan);
      const again = await delivered(c.n);
      assert.equal(again.outcome, 'duplicate');
      assert.equal((await detail(c.uuid)).amount_captured, 120.5, 'applied once');
      await booksAgree(c.uuid);
    });

    test('IMPRINT: the guest registers a card; AUTHORISED, the card shown masked, nothing debited', async () => {
      const c = await registeredImprint(150);
      const d = await detail(c.uuid);
      assert.equal(d.amount_captured, 0);
      assert.match(String(d.masked_pan), p.maskedPan);
      await booksAgree(c.uuid);
    });

    test('refusal: the bank refuses the card; REFUSED, nothing taken (on a provider page that keeps the attempt open: PENDING, another card pays)', async () => {
      const c = await createRequest(p.t, { request_type: 'DEPOSIT', amount: 60 });
      await delivered(await p.guestPays(c.uuid, c.payment_link, p.cards.refused));
      const d = await detail(c.uuid);
      assert.equal(d.status, p.declineKeepsAttemptOpen ? 'PENDING' : 'REFUSED');
      assert.equal(d.amount_captured, 0);
      await booksAgree(c.uuid);
      if (p.declineKeepsAttemptOpen) {
        await delivered(await p.guestPays(c.uuid, c.payment_link, p.cards.accepted));
        assert.equal((await detail(c.uuid)).status, 'CAPTURED');
        await booksAgree(c.uuid);
      }
    });

    test('technical error: ERROR, and the guest tries again on the same link and pays', async () => {
      const c = await createRequest(p.t, { request_type: 'DEPOSIT', amount: 70 });
      await delivered(await p.guestPays(c.uuid, c.payment_link, p.cards.technical));
      assert.equal((await detail(c.uuid)).status, p.declineKeepsAttemptOpen ? 'PENDING' : 'ERROR');
      await delivered(await p.guestPays(c.uuid, c.payment_link, p.cards.accepted));
      const d = await detail(c.uuid);
      assert.equal(d.status, 'CAPTURED');
      assert.equal(d.amount_captured, 70);
      await booksAgree(c.uuid);
    });

    test('reordered: the failed first attempt is notified after the paid second one; the request stays CAPTURED', async () => {
      const c = await createRequest(p.t, { request_type: 'DEPOSIT', amount: 75 });
      const failed = await p.guestPays(c.uuid, c.payment_link, p.cards.technical);
      const paid = await p.guestPays(c.uuid, c.payment_link, p.cards.accepted);
      await delivered(paid);
      await delivered(failed);
      const d = await detail(c.uuid);
      assert.equal(d.status, 'CAPTURED');
      assert.equal(d.amount_captured, 75);
      await booksAgree(c.uuid);
    });

    test('bad signature: refused (401), nothing changed; the genuine notification then applies', async () => {
      const c = await createRequest(p.t, { request_type: 'DEPOSIT', amount: 40 });
      const n = await p.guestPays(c.uuid, c.payment_link, p.cards.accepted);
      await delivered(p.forged(n), 401);
      assert.equal((await detail(c.uuid)).status, 'PENDING');
      await delivered(n);
      assert.equal((await detail(c.uuid)).status, 'CAPTURED');
    });

    test('the deferred hold: the daily job holds the amount (AUTHORISED_TO_VALIDATE, with its end); a full capture takes it all', async () => {
      const c = await heldImprint(150);
      const held = await detail(c.uuid);
      assert.ok(held.hold_expires_at, 'the hold has an end');
      await booksAgree(c.uuid);
      const r = await action(c.uuid, 'capture');
      assert.equal(r.statusCode, 200, r.body);
      const d = await detail(c.uuid);
      assert.equal(d.status, 'CAPTURED');
      assert.equal(d.amount_captured, 150);
      await booksAgree(c.uuid);
    });

    test('renewal: a hold that would lapse before the decision is renewed, the old one released; a no-show takes the live hold', async () => {
      const c = await heldImprint(150);
      const first = await detail(c.uuid);
      const ends = new Date(String(first.hold_expires_at));
      // The renewal job's run of the day before the hold ends, hotel time (real time otherwise).
      const runDay = new Date(ends.getTime() - 86_400_000);
      const r = await SCHEDULED_JOBS.renew_holds!(p.t.app.payreq, runDay, 'Europe/Paris');
      // Earlier tests' holds may be due too: each renewed, each replaced hold released.
      assert.ok(Number(r.renewed) >= 1 && r.released === r.renewed && r.refused === 0, JSON.stringify(r));
      const d = await detail(c.uuid);
      assert.equal(d.status, 'AUTHORISED_TO_VALIDATE');
      assert.ok(Date.parse(String(d.hold_expires_at)) >= ends.getTime(), 'the new hold ends no sooner');
      const order = await (await p.t.app.payreq.providers.forTenant(p.t.tenant.tenantId)).getOrder(c.uuid);
      const open = order.transactions.filter((x) => x.kind === 'hold' && x.status === 'authorised');
      assert.equal(open.length, 1, 'exactly one hold open at the provider');
      const chains = p.holdChains?.(c.uuid);
      if (chains) {
        assert.equal(chains.length, 2);
        assert.ok(
          chains[0] && chains[1] === chains[0],
          'the renewal is chained to the registration, as the first hold',
        );
      }
      const events = await p.t.db.query<{ type: string }>(
        "SELECT type FROM events WHERE payment_request_id = $1 AND type = 'payment_request.hold_renewed'",
        [c.uuid],
      );
      assert.equal(events.rows.length, 1);
      await booksAgree(c.uuid);
      const cap = await action(c.uuid, 'capture', { amount: 60 });
      assert.equal(cap.statusCode, 200, cap.body);
      const after = await (await p.t.app.payreq.providers.forTenant(p.t.tenant.tenantId)).getOrder(c.uuid);
      assert.deepEqual(
        after.transactions.filter((x) => x.kind === 'hold').map((x) => [x.status, x.capturedAmount]),
        [
          ['cancelled', 0],
          ['captured', 6000],
        ],
      );
      await booksAgree(c.uuid);
    });

    test('renewal race: a run that read before another renewed in full claims nothing; one renewal, one release, one open hold', async () => {
      const c = await heldImprint(130);
      const ends = new Date(String((await detail(c.uuid)).hold_expires_at));
      const runDay = dateIn('Europe/Paris', new Date(ends.getTime() - 86_400_000));
      const payreq = p.t.app.payreq;
      const renewals = holdRenewalsRepository(payreq.db);
      let hasRead: () => void = () => {};
      const read = new Promise<void>((r) => {
        hasRead = r;
      });
      let letClaim: () => void = () => {};
      const firstDone = new Promise<void>((r) => {
        letClaim = r;
      });
      let waited = false;
      // The second run reads the due holds, then waits while the first renews them in full.
      const stale: HoldRenewalsRepository = {
        ...renewals,
        async dueBatch(...args) {
          const rows = await renewals.dueBatch(...args);
          if (rows.some((r) => r.id === c.uuid) && !waited) {
            waited = true;
            hasRead();
            await firstDone;
          }
          return rows;
        },
      };
      const ctx = { runner: payreq.runner, cardTokens: payreq.cardTokens };
      const second = renewHolds({ ...ctx, renewals: stale }, runDay);
      await read;
      const first = await renewHolds({ ...ctx, renewals }, runDay);
      letClaim();
      const late = await second;
      assert.ok(first.renewed >= 1 && first.released === first.renewed, JSON.stringify(first));
      assert.equal(late.renewed, 0, JSON.stringify(late));
      const order = await (await payreq.providers.forTenant(p.t.tenant.tenantId)).getOrder(c.uuid);
      const holds = order.transactions.filter((x) => x.kind === 'hold');
      assert.deepEqual(
        holds.map((x) => x.status),
        ['cancelled', 'authorised'],
        'one renewal, the replaced hold released, one hold open at the provider',
      );
      await booksAgree(c.uuid);
    });

    test('partial capture: a one-night fee of the hold; the rest is freed', async () => {
      const c = await heldImprint(150);
      const r = await action(c.uuid, 'capture', { amount: 45.5 });
      assert.equal(r.statusCode, 200, r.body);
      const d = await detail(c.uuid);
      assert.equal(d.status, 'CAPTURED');
      assert.equal(d.amount_captured, 45.5);
      await booksAgree(c.uuid);
    });

    test('release: the guest showed up; CANCELLED, nothing taken', async () => {
      const c = await heldImprint(90);
      const r = await action(c.uuid, 'release');
      assert.equal(r.statusCode, 200, r.body);
      const d = await detail(c.uuid);
      assert.equal(d.status, 'CANCELLED');
      assert.equal(d.amount_captured, 0);
      await booksAgree(c.uuid);
    });

    test('the hold refused by the bank (the card went bad since it was registered): a failed guarantee, ERROR, no hold; another card on the same link is held by the next run', async () => {
      const c = await registeredImprint(110);
      await p.cardGoesBad(c.uuid);
      await dailyJob();
      const failed = await detail(c.uuid);
      assert.equal(failed.status, 'ERROR');
      assert.equal(failed.guarantee_failures, 1);
      const events = await p.t.db.query<{ type: string }>(
        'SELECT type FROM events WHERE payment_request_id = $1 ORDER BY id DESC LIMIT 1',
        [c.uuid],
      );
      assert.equal(events.rows[0]?.type, 'payment_request.guarantee_failed');
      await booksAgree(c.uuid);
      const networkId = async () =>
        (
          await p.t.db.query<{ id: string | null }>(
            'SELECT card_network_transaction_id AS id FROM payment_requests WHERE id = $1',
            [c.uuid],
          )
        ).rows[0]?.id ?? null;
      const oldCard = await networkId();
      await delivered(await p.guestPays(c.uuid, c.payment_link, p.cards.accepted));
      assert.equal((await detail(c.uuid)).status, 'AUTHORISED', 'the new card is registered');
      if (oldCard !== null)
        assert.notEqual(await networkId(), oldCard, 'the new card never carries the old one’s network id');
      await dailyJob();
      assert.equal((await detail(c.uuid)).status, 'AUTHORISED_TO_VALIDATE', 'and held');
      await booksAgree(c.uuid);
    });

    test('a soft decline (insufficient funds) keeps the card until the check-in day, whose refusal ends the guarantee', async () => {
      const c = await registeredImprint(120);
      await p.cardGoesBad(c.uuid, 'soft');
      const lastEvent = async () =>
        (
          await p.t.db.query<{ type: string; reason: string | null }>(
            `SELECT e.type, h.detail->>'decline_reason' AS reason FROM events e
               JOIN status_history h ON h.payment_request_id = e.payment_request_id
              WHERE e.payment_request_id = $1 ORDER BY e.id DESC, h.id DESC LIMIT 1`,
            [c.uuid],
          )
        ).rows[0];
      // Two days and one day before check-in: declined, tried again, the card still the guarantee.
      for (const day of [D, '2026-12-11']) {
        await SCHEDULED_JOBS.create_deferred_payments!(p.t.app.payreq, new Date(`${day}T10:00:00Z`), 'Europe/Paris');
        const d = await detail(c.uuid);
        assert.equal(d.status, 'AUTHORISED', `after ${day}'s run`);
        assert.equal(d.guarantee_failures, day === D ? 1 : 2, 'every refused hold counts, soft ones too');
        assert.equal(d.hold_decline_reason, 'insufficient_funds');
        assert.deepEqual(await lastEvent(), { type: 'payment_request.hold_declined', reason: 'insufficient_funds' });
        await booksAgree(c.uuid);
      }
      // The check-in day's run: the refusal is final.
      await SCHEDULED_JOBS.create_deferred_payments!(p.t.app.payreq, new Date(`${CHECKIN}T10:00:00Z`), 'Europe/Paris');
      const failed = await detail(c.uuid);
      assert.equal(failed.status, 'ERROR');
      assert.equal(failed.guarantee_failures, 3);
      assert.deepEqual(await lastEvent(), { type: 'payment_request.guarantee_failed', reason: 'insufficient_funds' });
      const event = await p.t.db.query<{ data: Record<string, unknown> }>(
        `SELECT data FROM events WHERE payment_request_id = $1 AND type = 'payment_request.guarantee_failed'`,
        [c.uuid],
      );
      assert.equal(event.rows[0]?.data.hold_decline_reason, 'insufficient_funds', 'the event carries the reason');
      assert.equal(event.rows[0]?.data.hold_decline_code, failed.hold_decline_code);
      assert.ok(failed.hold_decline_code, 'and the provider’s code');
      // Another card, held: the decline is history, not the request's state.
      await delivered(await p.guestPays(c.uuid, c.payment_link, p.cards.accepted));
      assert.equal((await detail(c.uuid)).hold_decline_reason, null, 'a new card clears it');
      await booksAgree(c.uuid);
    });

    test('a card that expires before its hold is refused at registration: ERROR, no card kept, the guest may try again', async () => {
      // Both test banks give cards that expire by 2031: a stay in 2040 outlives them.
      const c = await createRequest(p.t, {
        request_type: 'IMPRINT',
        amount: 70,
        reservation_data: { checkin: '2040-01-10' },
      });
      await delivered(await p.guestPays(c.uuid, c.payment_link, p.cards.accepted));
      const d = await detail(c.uuid);
      assert.equal(d.status, 'ERROR');
      assert.equal(d.masked_pan, '', 'the card is not kept');
      const last = (await p.t.repos.paymentRequests.history(c.uuid)).at(-1);
      assert.equal((last?.detail as { reason?: string } | null)?.reason, 'card_expires_before_hold');
      await booksAgree(c.uuid);
    });

    test('technical error on capture: 502, nothing moved, the hold still there; asked again, it captures', async () => {
      const c = await heldImprint(80);
      p.failNext('capture', 'technical');
      const failed = await action(c.uuid, 'capture');
      assert.equal(failed.statusCode, 502, failed.body);
      assert.equal((await detail(c.uuid)).status, 'AUTHORISED_TO_VALIDATE');
      await booksAgree(c.uuid);
      const r = await action(c.uuid, 'capture');
      assert.equal(r.statusCode, 200, r.body);
      assert.equal((await detail(c.uuid)).status, 'CAPTURED');
      await booksAgree(c.uuid);
    });

    test('full refund of a deposit: REFUNDED; a partial refund keeps CAPTURED with what went back', async () => {
      const full = await paidDeposit(100);
      await p.t.app.payreq.commands.refund(tenant(), full.uuid, undefined, admin);
      const f = await detail(full.uuid);
      assert.equal(f.status, 'REFUNDED');
      assert.equal(f.amount_refunded, 100);
      await booksAgree(full.uuid);

      const part = await paidDeposit(100);
      await p.t.app.payreq.commands.refund(tenant(), part.uuid, 30, admin);
      const d = await detail(part.uuid);
      assert.equal(d.status, 'CAPTURED');
      assert.equal(d.amount_captured, 100);
      assert.equal(d.amount_refunded, 30);
      await booksAgree(part.uuid);
    });

    test('a provider that acts and never answers: 504 outcome_unknown, in doubt; reconcile then finds it done', async () => {
      const c = await heldImprint(95);
      p.failNext('capture', 'timeout');
      const started = Date.now();
      const r = await action(c.uuid, 'capture');
      assert.equal(r.statusCode, 504, r.body);
      assert.equal(r.json().code, 'outcome_unknown');
      const waited = Math.min(PROVIDER_TIMEOUT_MS, p.givesUpAfterMs ?? PROVIDER_TIMEOUT_MS);
      assert.ok(Date.now() - started >= waited * 0.8, 'answered when every try went unanswered, not before');
      assert.equal((await detail(c.uuid)).status, 'AUTHORISED_TO_VALIDATE', 'in doubt: not guessed either way');
      await eventually(async () => {
        await p.t.app.payreq.reconciler.reconcile();
        return (await detail(c.uuid)).status === 'CAPTURED' ? true : undefined;
      }, 'reconcile settles the capture');
      assert.equal((await detail(c.uuid)).amount_captured, 95);
      await booksAgree(c.uuid);
    });
  });
}
