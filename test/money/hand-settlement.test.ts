import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runCommand } from '../../src/cli/index.ts';
import { ControlClient, createUser } from '../control/control-client.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { countingProvider, gate } from '../helpers/providers.ts';
import { eventually } from '../helpers/sandbox-checkout.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

/**
 * The operator cannot contradict the provider silently: `books settle` reads the provider's view
 * first, refuses a young operation or a verdict the provider contradicts unless forced, checks a
 * transaction it names, and a late answer against a hand settlement becomes an incident.
 */
describe(`a hand settlement against the provider's view (${ENGINE})`, () => {
  let t: TestApp;
  const provider = countingProvider();
  before(async () => {
    t = await startTestApp({
      provider: provider.provider,
      env: { PROVIDER_TIMEOUT_MS: '300', IN_DOUBT_ESCALATE_HOURS: '24' },
    });
  });
  after(() => t.close());

  const tenant = () => ({ tenantId: t.tenant.tenantId, timezone: 'Europe/Paris', linkLifetimeDays: 30 });
  const admin = { source: 'admin' as const, actor: 'user:test' };
  const cli = (argv: string[]) => runCommand(argv, { config: t.config, db: t.db, repos: t.repos, app: t.app.payreq });
  const settle = (...argv: string[]) => cli(['books', 'settle', ...argv, '--json']);
  const row = async (id: string, kind: string) =>
    (
      await t.db.query<{ id: string; state: string; settled_by: string | null }>(
        'SELECT id::text, state, settled_by FROM money_ledger WHERE payment_request_id = $1 AND kind = $2 ORDER BY id DESC',
        [id, kind],
      )
    ).rows[0];
  const old = (ledgerId: string) =>
    t.db.query("UPDATE money_ledger SET created_at = now() - interval '25 hours' WHERE id = $1::bigint", [ledgerId]);
  const isOutcomeUnknown = (err: { code?: string }) => err.code === 'outcome_unknown';
  async function held(amount = 90) {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount });
    await arrangeStatus(t.db, c.uuid, 'AUTHORISED_TO_VALIDATE');
    return c.uuid;
  }

  test('a young operation is refused unless forced, with what the provider shows; forced, audited as such', async () => {
    const id = await held();
    const late = gate();
    provider.holdUntil(late.opened);
    try {
      await assert.rejects(t.app.payreq.commands.capture(tenant(), id, undefined, admin), isOutcomeUnknown);
    } finally {
      provider.holdUntil(undefined);
    }
    const capture = await row(id, 'capture');
    assert.equal(capture?.state, 'in_doubt');
    const operation = capture?.id as string;
    const young = await settle('--operation', operation, '--as', 'refused', '--reason', 'nothing in the back office');
    assert.equal(young.exitCode, 1);
    assert.match(young.stderr, /minutes old: reconcile may still settle it .*IN_DOUBT_ESCALATE_HOURS.*--force/);
    assert.match(young.stderr, /the provider shows: not there/);
    assert.equal((await row(id, 'capture'))?.state, 'in_doubt', 'nothing settled');

    const forced = await settle('--operation', operation, '--as', 'refused', '--reason', 'nothing there', '--force');
    assert.equal(forced.exitCode, 0, forced.stderr);
    const out = JSON.parse(forced.stdout);
    assert.deepEqual({ state: out.state, forced: out.forced }, { state: 'refused', forced: true });
    assert.match(out.provider_shows, /^not there/);
    const audit = await t.db.query<{ detail: Record<string, unknown> }>(
      "SELECT detail FROM admin_audit WHERE action = 'ledger.settle' AND target = $1",
      [operation],
    );
    assert.equal(audit.rows[0]?.detail.forced, true);

    // The provider's answer comes after all: the capture happened. Never dropped: an incident.
    late.open();
    await provider.idle();
    const incident = await eventually(async () => {
      const r = await t.db.query<{ problems: string[] }>(
        'SELECT problems FROM books_incidents WHERE payment_request_id = $1 AND resolved_at IS NULL',
        [id],
      );
      return r.rows[0];
    }, 'an incident');
    assert.deepEqual(incident.problems, ['hand_settlement_contradicted']);
    const lateAudit = await t.db.query<{ detail: Record<string, unknown> }>(
      "SELECT detail FROM admin_audit WHERE action = 'ledger.late_answer' AND target = $1",
      [operation],
    );
    assert.deepEqual(
      { as: lateAudit.rows[0]?.detail.settled_as, said: lateAudit.rows[0]?.detail.provider_said },
      { as: 'refused', said: 'succeeded' },
    );
    assert.equal((await row(id, 'capture'))?.state, 'refused', 'the ledger keeps the decision; the incident says why');
    await createUser(t, 'books-manager', t.tenant.tenantId, 'manager');
    const office = await new ControlClient(t).signedIn('books-manager');
    const page = await office.get('/control/books');
    assert.match(page.body, /answered late, after this operation was settled by hand/);
  });

  test('a verdict the provider contradicts is refused unless forced', async () => {
    const id = await held(60);
    provider.loseAnswers(true);
    try {
      await assert.rejects(t.app.payreq.commands.release(tenant(), id, admin), isOutcomeUnknown);
    } finally {
      provider.loseAnswers(false);
    }
    const release = await row(id, 'release');
    const operation = release?.id as string;
    await old(operation);
    // The release reached the sandbox: it shows the hold cancelled.
    const refused = await settle('--operation', operation, '--as', 'refused', '--reason', 'I think not');
    assert.equal(refused.exitCode, 1);
    assert.match(refused.stderr, /settling it as refused contradicts the provider.*the provider shows: done/);
    const done = await settle('--operation', operation, '--as', 'done', '--reason', 'released in the back office');
    assert.equal(done.exitCode, 0, done.stderr);
    assert.deepEqual(
      { state: JSON.parse(done.stdout).state, forced: JSON.parse(done.stdout).forced },
      { state: 'succeeded', forced: false },
    );
    assert.equal((await t.repos.paymentRequests.find(t.tenant.tenantId, id))?.status, 'CANCELLED');
  });

  test('a transaction named must be one of the order’s and not one the ledger knows', async () => {
    const id = await held(50);
    await t.app.payreq.commands.capture(tenant(), id, undefined, admin);
    provider.loseAnswers(true);
    try {
      await assert.rejects(t.app.payreq.commands.refund(tenant(), id, 20, admin), isOutcomeUnknown);
    } finally {
      provider.loseAnswers(false);
    }
    const refund = await row(id, 'refund');
    const operation = refund?.id as string;
    await old(operation);
    const base = ['--operation', operation, '--as', 'done', '--reason', 'seen'];
    const stranger = await settle(...base, '--transaction', 'txn_not_this_orders');
    assert.equal(stranger.exitCode, 1);
    assert.match(stranger.stderr, /txn_not_this_orders is not one of this order's at the provider/);
    const hold = await t.db.query<{ txn: string }>(
      "SELECT provider_transaction_id AS txn FROM money_ledger WHERE payment_request_id = $1 AND kind = 'hold'",
      [id],
    );
    const known = await settle(...base, '--transaction', hold.rows[0]?.txn as string, '--force');
    assert.equal(known.exitCode, 1, 'not even forced');
    assert.match(known.stderr, /is already operation \d+'s in the ledger/);
    assert.equal((await row(id, 'refund'))?.state, 'in_doubt', 'nothing settled by a wrong transaction');
    // The refund the provider shows, named by what it shows: settled done.
    const right = await settle(...base);
    assert.equal(right.exitCode, 0, right.stderr);
    assert.equal((await t.repos.paymentRequests.find(t.tenant.tenantId, id))?.amount_refunded, 2000);
  });

  test('the Books page asks for a confirmation, saying what the provider shows, before it records against it', async () => {
    const id = await held(40);
    provider.loseAnswers(true);
    try {
      await assert.rejects(t.app.payreq.commands.release(tenant(), id, admin), isOutcomeUnknown);
    } finally {
      provider.loseAnswers(false);
    }
    const operation = (await row(id, 'release'))?.id as string;
    await old(operation);
    await createUser(t, 'books-confirm', t.tenant.tenantId, 'manager');
    const office = await new ControlClient(t).signedIn('books-confirm');
    await office.get('/control/books');
    const asked = await office.post('/control/books/settle', { operation, as: 'refused', reason: 'not sure' });
    assert.equal(asked.statusCode, 409);
    assert.match(asked.body, /Record it anyway/);
    assert.match(asked.body, /What you record contradicts what the provider shows now/);
    assert.match(asked.body, /<code>done \(transaction /);
    assert.equal((await row(id, 'release'))?.state, 'in_doubt', 'nothing recorded before the confirmation');
    const confirmed = await office.post('/control/books/settle', {
      operation,
      as: 'refused',
      reason: 'not sure',
      force: 'on',
    });
    assert.equal(confirmed.statusCode, 303);
    assert.equal((await row(id, 'release'))?.state, 'refused');
  });
});
