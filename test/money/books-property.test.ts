import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { STATUSES, TRANSITIONS } from '../../src/domain/index.js';
import { createDeferredPayments } from '../../src/jobs/index.js';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.js';
import { countingProvider } from '../helpers/providers.js';
import { checkoutForm, postIpn, submitCard } from '../helpers/sandbox-checkout.js';
import { createRequest, ENGINE } from '../helpers/test-app.js';

const D = '2026-12-10';
const CHECKIN = '2026-12-12';
const CARDS = { good: '4242424242424242', refused: '4000000000000002', error: '4000000000000119' } as const;

type Step =
  | { kind: 'pay'; i: number; card: keyof typeof CARDS; old: boolean }
  | { kind: 'replay'; nth: number }
  | { kind: 'capture' | 'release' | 'cancel' | 'delete'; i: number; lost: boolean }
  | { kind: 'job'; lost: boolean };

const step = (n: number): fc.Arbitrary<Step> =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant('pay' as const),
        i: fc.nat(n - 1),
        card: fc.constantFrom('good', 'refused', 'error' as const),
        old: fc.boolean(),
      }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('replay' as const), nth: fc.nat(20) }) },
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constantFrom('capture', 'release', 'cancel', 'delete' as const),
        i: fc.nat(n - 1),
        lost: fc.boolean(),
      }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('job' as const), lost: fc.boolean() }) },
  );

/** Every (from, to) the history may show: the table's moves, a partial refund, the trail's marks. */
function allowedMoves(): Set<string> {
  const moves = new Set<string>();
  for (const t of TRANSITIONS) for (const from of t.from) moves.add(`${from}>${t.to}`);
  moves.add('CAPTURED>CAPTURED');
  for (const s of [...STATUSES, null]) {
    moves.add(`${s}>INCIDENT`);
    moves.add(`${s}>DELETED`);
  }
  moves.add('null>NOT_INITIATED');
  return moves;
}

// Random interleavings of guests paying (good, refused, failing cards, with forms opened at any
// time), notifications delivered again out of order, captures, releases, cancels, deletes, daily
// job runs, and answers lost on the way. After reconcile, payreq's books equal the provider's for
// every request, no hold is open that should not be, and every status move is one the table allows.
describe(`the books always match the provider's (${ENGINE})`, () => {
  let t: ListeningApp;
  const provider = countingProvider();
  before(async () => {
    t = await startListeningApp({ provider: provider.provider, env: { IN_DOUBT_GRACE_SECONDS: '60' } });
  });
  after(() => t.close());

  test('random interleavings, then reconcile: every request agrees with the sandbox', async () => {
    const moves = allowedMoves();
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('IMPRINT', 'DEPOSIT' as const), { minLength: 2, maxLength: 3 }),
        fc.array(step(3), { minLength: 4, maxLength: 14 }),
        async (types, steps) => {
          const ids: string[] = [];
          for (const request_type of types) {
            const c = await createRequest(t, {
              request_type,
              amount: 80,
              reservation_data: { checkin: CHECKIN },
            });
            ids.push(c.uuid);
          }
          // Forms opened up front too: a guest's old tab posted whenever.
          const oldForms = await Promise.all(ids.map((id) => checkoutForm(t, id)));
          for (const s of steps) {
            if (s.kind === 'pay') {
              const id = ids[s.i % ids.length] as string;
              // A new form comes from the guest page, which a deleted request no longer has.
              const gone = !(await t.repos.paymentRequests.findAnyTenant(id));
              const form = s.old ? oldForms[s.i % ids.length] : gone ? undefined : await checkoutForm(t, id);
              if (form) await submitCard(form, { number: CARDS[s.card] });
            } else if (s.kind === 'replay') {
              const sent = await t.db.query<{ body: string }>('SELECT body FROM sandbox_notifications ORDER BY id');
              const body = sent.rows.length ? sent.rows[s.nth % sent.rows.length]?.body : undefined;
              if (body) assert.ok((await postIpn(t, body)).status < 500);
            } else if (s.kind === 'job') {
              provider.loseAnswers(s.lost);
              try {
                await createDeferredPayments(
                  { holds: t.repos.deferredHolds, runner: t.app.payreq.runner, cardTokens: t.app.payreq.cardTokens },
                  D,
                );
              } finally {
                provider.loseAnswers(false);
              }
            } else {
              const id = ids[s.i % ids.length] as string;
              provider.loseAnswers(s.lost);
              try {
                const r =
                  s.kind === 'delete'
                    ? await t.call({ method: 'DELETE', url: `/api/payment-requests/${id}/` })
                    : await t.call({ method: 'POST', url: `/api/payment-requests/${id}/${s.kind}/` });
                assert.ok([200, 400, 404, 409, 504].includes(r.statusCode), `${s.kind}: ${r.statusCode} ${r.body}`);
              } finally {
                provider.loseAnswers(false);
              }
            }
          }
          await t.app.payreq.reconciler.reconcile();
          for (const id of ids) {
            const problem = await t.app.payreq.reconciler.checkRequest(id);
            assert.equal(problem, undefined, JSON.stringify({ problem, steps, types }));
            const open = await t.db.query(
              "SELECT 1 FROM money_ledger WHERE payment_request_id = $1 AND state IN ('requested', 'in_doubt')",
              [id],
            );
            assert.equal(open.rows.length, 0, `${id}: an operation stayed open after reconcile`);
            for (const h of await t.repos.paymentRequests.history(id)) {
              assert.ok(moves.has(`${h.from_status}>${h.to_status}`), `${h.from_status} -> ${h.to_status}`);
            }
          }
        },
      ),
      { numRuns: 8 },
    );
  });
});
