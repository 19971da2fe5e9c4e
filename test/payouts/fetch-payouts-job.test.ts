import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runCommand } from '../../src/cli/index.ts';
import type { StripeObject } from '../fakes/stripe/fake-store.ts';
import { useStripeAccount } from '../fakes/stripe/give-account.ts';
import { openCheckout, submitCheckout } from '../fakes/stripe/guest-pays.ts';
import { FAKE_KEYS, type StripeFake, startStripeFake } from '../fakes/stripe/stripe-fake.ts';
import { STRIPE_CARDS } from '../fakes/stripe/test-cards.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { eventually } from '../helpers/sandbox-checkout.ts';
import { createRequest, ENGINE, type TenantWithKey } from '../helpers/test-app.ts';

/** A third hotel's own Stripe account (INVENTED key, shaped as Stripe's). */
const THIRD_KEY = 'sk_test_51ThirdHotelAccountKey000000000';

/**
 * The daily `fetch_payouts` job, run as `payreq job run fetch_payouts` runs it (through the
 * queue): every Stripe hotel's new payouts stored, each on its own account; a hotel whose
 * Stripe cannot be reached is counted and named, and does not stop the others.
 */
describe(`the fetch_payouts job: every Stripe hotel (${ENGINE})`, { timeout: 300_000 }, () => {
  let t: ListeningApp;
  let fake: StripeFake;
  before(async () => {
    fake = await startStripeFake();
    t = await startListeningApp({ env: { PROVIDER_TIMEOUT_MS: '3000' } });
  });
  after(async () => {
    await t?.close();
    await fake?.close();
  });

  const cli = (...argv: string[]) =>
    runCommand(argv, { config: t.config, db: t.db, repos: t.repos, app: t.app.payreq });

  async function paid(tenant: TenantWithKey, amount: number) {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount }, tenant);
    const visit = await openCheckout(t, c.payment_link);
    assert.ok(visit);
    assert.equal((await submitCheckout(visit, STRIPE_CARDS.visa)).status, 303);
    await eventually(async () => {
      const r = await t.call({ method: 'GET', url: `/api/payment-requests/${c.uuid}/`, tenant });
      return (r.json() as { status: string }).status === 'CAPTURED' ? true : undefined;
    }, 'paid');
    return c;
  }

  test('two hotels’ payouts stored, each matched on its own ledger; a hotel whose Stripe fails is counted; again: nothing new', async () => {
    const first = t.tenant;
    const second = await t.newTenant('Hôtel Deux');
    const third = await t.newTenant('Hôtel Trois');
    const sandboxHotel = await t.newTenant('Hôtel sans Stripe');
    fake.addAccount(FAKE_KEYS.other);
    fake.addAccount(THIRD_KEY);
    await useStripeAccount(t, first.tenantId, fake);
    await useStripeAccount(t, second.tenantId, fake, { secretKey: FAKE_KEYS.other });
    await useStripeAccount(t, third.tenantId, fake, { secretKey: THIRD_KEY });
    // The third hotel's Stripe is out of reach (a closed port): its fetch fails.
    await t.db.query("UPDATE provider_accounts SET api_url = 'http://127.0.0.1:9/' WHERE tenant_id = $1", [
      third.tenantId,
    ]);

    const a = await paid(first, 80);
    const b = await paid(second, 45);
    await fake.idle();
    const p1 = fake.ops.payout(new Date()) as StripeObject;
    const p2 = fake.accountOf(FAKE_KEYS.other)?.ops.payout(new Date()) as StripeObject;
    assert.ok(p1 && p2);

    const run = await cli('job', 'run', 'fetch_payouts', '--json');
    assert.equal(run.exitCode, 0, run.stderr);
    const counts = JSON.parse(run.stdout.trim().split('\n').pop() as string) as Record<string, unknown>;
    assert.equal(counts.hotels, 3, run.stdout);
    assert.equal(counts.failed, 1);
    assert.deepEqual([counts.remittances, counts.lines, counts.matched, counts.unmatched], [2, 2, 2, 0]);
    const errors = counts.errors as { tenant_id: string; error: string }[];
    assert.deepEqual(
      errors.map((e) => e.tenant_id),
      [third.tenantId],
    );

    const stored = await t.db.query<{ tenant_id: string; remittance_nb: string; request: string; net: number }>(
      `SELECT r.tenant_id::text AS tenant_id, r.remittance_nb, l.payment_request_id::text AS request, r.net::float8 AS net
         FROM remittances r JOIN remittance_lines l ON l.remittance_id = r.id
        WHERE l.ledger_id IS NOT NULL ORDER BY r.net DESC`,
    );
    assert.deepEqual(stored.rows, [
      { tenant_id: first.tenantId, remittance_nb: p1.id, request: a.uuid, net: p1.amount },
      { tenant_id: second.tenantId, remittance_nb: p2.id, request: b.uuid, net: p2.amount },
    ]);
    const none = await t.db.query('SELECT 1 FROM remittances WHERE tenant_id = ANY($1::uuid[])', [
      [third.tenantId, sandboxHotel.tenantId],
    ]);
    assert.equal(none.rows.length, 0);

    // Another run (one for yesterday, caught up by hand: a day's run happens once): nothing new anywhere.
    const next = await cli('job', 'run', 'fetch_payouts', '--date', yesterday(), '--json');
    assert.equal(next.exitCode, 0, next.stderr);
    const again = JSON.parse(next.stdout.trim().split('\n').pop() as string) as Record<string, unknown>;
    assert.deepEqual([again.hotels, again.failed, again.remittances, again.lines], [3, 1, 0, 0]);
    const total = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM remittance_lines');
    assert.equal(total.rows[0]?.n, 2);
  });
});

function yesterday(): string {
  return new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
}
