import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { ControlClient, createUser, withoutLabels } from './control-client.ts';

describe(`back office payment requests (${ENGINE})`, { timeout: 180_000 }, () => {
  let t: TestApp;
  let c: ControlClient;
  before(async () => {
    t = await startTestApp();
    await createUser(t, 'frontdesk', t.tenant.tenantId);
    c = await new ControlClient(t).signedIn('frontdesk');
  });
  after(() => t.close());

  const api = async (id: string) => (await t.call({ method: 'GET', url: `/api/payment-requests/${id}/` })).json();

  /** A held imprint, captured through the API: money to refund. */
  async function capturedRequest(amount: number, overrides: Record<string, unknown> = {}) {
    const r = await createRequest(t, { request_type: 'IMPRINT', amount, ...overrides });
    await arrangeStatus(t.db, r.uuid, 'AUTHORISED_TO_VALIDATE');
    const cap = await t.call({ method: 'POST', url: `/api/payment-requests/${r.uuid}/capture/` });
    assert.equal(cap.statusCode, 200, cap.body);
    return r;
  }

  /** Detail page → confirmation page (amount in words) → POST: as a user clicks through. */
  async function act(id: string, action: string, amount = '') {
    const confirm = await c.get(
      `/control/requests/${id}/confirm?action=${action}&amount=${encodeURIComponent(amount)}`,
    );
    assert.equal(confirm.statusCode, 200, confirm.body);
    const fields: Record<string, string> = {};
    for (const m of confirm.body.matchAll(/<input type="hidden" name="(amount|nonce)" value="([^"]*)">/g)) {
      fields[m[1] as string] = m[2] as string;
    }
    const r = await c.post(`/control/requests/${id}/${action}`, fields);
    assert.equal(r.statusCode, 303, r.body);
    return { confirm, page: await c.get(String(r.headers.location)) };
  }

  test('an imprint without a check-in date says on its page that no hold will be placed', async () => {
    const undated = await createRequest(t, { request_type: 'IMPRINT', reservation_data: {} });
    const dated = await createRequest(t, { request_type: 'IMPRINT' });
    const notice = /No hold will be placed: this imprint has no check-in date/;
    assert.match((await c.get(`/control/requests/${undated.uuid}`)).body, notice);
    assert.doesNotMatch((await c.get(`/control/requests/${dated.uuid}`)).body, notice);
    // Once money has moved by hand (a capture needs a hold, so a cancel here), the warning has no use.
    await arrangeStatus(t.db, undated.uuid, 'CANCELLED');
    assert.doesNotMatch((await c.get(`/control/requests/${undated.uuid}`)).body, notice);
  });

  test('the list filters by status and finds by guest name, e-mail, reference or reservation', async () => {
    const a = await createRequest(t, { guest_last_name: 'Zeffirelli', reservation_ref: 'RES-ZZ-1' });
    const b = await createRequest(t, { request_type: 'DEPOSIT', guest_email: 'unique.person@example.org' });
    const all = await c.get('/control/requests');
    assert.equal(all.statusCode, 200);
    assert.ok(all.body.includes(a.reference) && all.body.includes(b.reference));
    const byName = await c.get('/control/requests?q=zeffir');
    assert.ok(byName.body.includes(a.reference));
    assert.ok(!byName.body.includes(b.reference));
    assert.ok((await c.get('/control/requests?q=UNIQUE.PERSON')).body.includes(b.reference));
    assert.ok((await c.get(`/control/requests?q=${a.reference}`)).body.includes(a.reference));
    assert.ok((await c.get('/control/requests?q=RES-ZZ')).body.includes(a.reference));
    const deposits = await c.get('/control/requests?type=DEPOSIT');
    assert.ok(deposits.body.includes(b.reference) && !deposits.body.includes(a.reference));
    const none = await c.get('/control/requests?q=%25%25_nothing');
    assert.match(none.body, /No payment request matches/);
    // Bad filter values are ignored or refused clearly, never a 500: an unknown status is no
    // filter; a date that is not one says so (test/control/hostile-input.test.ts).
    assert.equal((await c.get('/control/requests?status=NOPE')).statusCode, 200);
    assert.equal((await c.get('/control/requests?created_from=2026-99-99')).statusCode, 400);
    assert.equal((await c.get('/control/requests?after=garbage')).statusCode, 400);
  });

  test('keyset pages: 50 a page, the next link continues without repeats', async () => {
    const made = new Set<string>();
    for (let i = 0; i < 52; i++) made.add((await createRequest(t, { reservation_ref: `PAGE-${i}` })).reference);
    const first = await c.get('/control/requests?q=page-');
    const next = /<a href="([^"]+)" rel="next">/.exec(first.body)?.[1]?.replaceAll('&amp;', '&');
    assert.ok(next, 'a next-page link');
    const second = await c.get(next);
    const refs = (body: string) => [...body.matchAll(/>((?:IMP|DEP)-\d{4}-\d+)</g)].map((m) => m[1]);
    const seen = [...refs(first.body), ...refs(second.body)];
    assert.equal(refs(first.body).length, 50);
    assert.equal(new Set(seen).size, 52);
    assert.deepEqual(new Set(seen), made);
  });

  test('text with a digit or @ is matched from the start of a reference, reservation or e-mail', async () => {
    const a = await createRequest(t, { guest_email: 'Prefix.Case7@Example.com', reservation_ref: 'PFX-77-A' });
    // Holds the same text, but not at the start of anything.
    const b = await createRequest(t, { guest_email: 'x.prefix.case7@example.com', reservation_ref: 'ZPFX-77-A' });
    const prefixed = async (q: string) => {
      const page = await c.get(`/control/requests?q=${encodeURIComponent(q)}`);
      assert.equal(page.statusCode, 200);
      return { a: page.body.includes(a.reference), b: page.body.includes(b.reference), body: page.body };
    };
    const byEmail = await prefixed('PREFIX.case7@');
    assert.deepEqual([byEmail.a, byEmail.b], [true, false], 'e-mail start, any case');
    assert.match(byEmail.body, /starts with “PREFIX.case7@”/);
    const byReservation = await prefixed('pfx-77');
    assert.deepEqual([byReservation.a, byReservation.b], [true, false], 'reservation start');
    const byReference = await prefixed(` ${a.reference.toLowerCase()} `);
    assert.deepEqual([byReference.a, byReference.b], [true, false], 'whole reference, trimmed');
    // Nothing starts with it: looked for anywhere, as words are, and the page says nothing of a start.
    const inside = await prefixed('fx-77-a');
    assert.deepEqual([inside.a, inside.b], [true, true], 'a fragment from inside');
    assert.doesNotMatch(inside.body, /starts with/);
    // A % or _ typed is a character, not a wildcard, on both paths.
    assert.deepEqual(Object.values(await prefixed('pfx_77')).slice(0, 2), [false, false]);
    assert.deepEqual(Object.values(await prefixed('%77-a')).slice(0, 2), [false, false]);
    // Words (no digit, no @) still match inside names and e-mails.
    const words = await prefixed('refix.cas');
    assert.deepEqual([words.a, words.b], [true, true]);
  });

  test('a prefix search pages like any other and never falls back to "contains" on a later page', async () => {
    const decoy = await createRequest(t, { reservation_ref: 'XPG7-1' });
    const made = new Set<string>();
    for (let i = 0; i < 51; i++) made.add((await createRequest(t, { reservation_ref: `PG7-${i}` })).reference);
    const first = await c.get('/control/requests?q=pg7-');
    const next = /<a href="([^"]+)" rel="next">/.exec(first.body)?.[1]?.replaceAll('&amp;', '&');
    assert.ok(next, 'a next-page link');
    const second = await c.get(next);
    const refs = (body: string) => [...body.matchAll(/>((?:IMP|DEP)-\d{4}-\d+)</g)].map((m) => m[1]);
    assert.equal(refs(first.body).length, 50);
    assert.deepEqual(new Set([...refs(first.body), ...refs(second.body)]), made);
    assert.match(second.body, /starts with/);
    assert.doesNotMatch(second.body, /rel="next"/);
    // Past the oldest match, the search is still by prefix: nothing left, not the decoy.
    const oldest = await t.db.query<{ created_at: Date; id: string }>(
      "SELECT created_at, id FROM payment_requests WHERE reservation_ref LIKE 'PG7-%' ORDER BY created_at, id LIMIT 1",
    );
    const past = await t.repos.controlRequests.list({
      tenantId: t.tenant.tenantId,
      text: 'pg7-',
      before: { createdAt: oldest.rows[0]?.created_at as Date, id: oldest.rows[0]?.id as string },
      limit: 51,
    });
    assert.deepEqual(past, { rows: [], match: 'prefix' });
    assert.ok((await c.get('/control/requests?q=xpg7-')).body.includes(decoy.reference));
  });

  test('the detail shows every field, the reservation data and the history', async () => {
    const r = await createRequest(t, {
      guest_first_name: 'Amélie',
      reservation_data: { checkin: '2026-12-24', room_type: '<b>Suite</b>', extras: { parking: true } },
    });
    const page = await c.get(`/control/requests/${r.uuid}`);
    assert.equal(page.statusCode, 200);
    for (const text of [r.reference, 'Amélie', 'jeanne.martin@example.com', 'RES-1001', '24 Dec 2026']) {
      assert.ok(page.body.includes(text), `shows ${text}`);
    }
    assert.ok(!page.body.includes('2026-12-24'), 'the check-in in words, as the page’s other dates');
    assert.ok(page.body.includes('&lt;b&gt;Suite&lt;/b&gt;'), 'reservation data is escaped');
    assert.ok(!page.body.includes('<b>Suite</b>'));
    assert.match(page.body, /&quot;parking&quot;: true/);
    assert.match(page.body, /Not initiated/);
    // Exactly the actions the table allows in NOT_INITIATED: cancel, delete, resend; no money.
    const actions = [...page.body.matchAll(/name="action" value="(\w+)"/g)].map((m) => m[1]);
    assert.deepEqual(actions.sort(), ['cancel', 'delete', 'resend']);
  });

  test('a partial then a full refund: CAPTURED with amount_refunded, then REFUNDED', async () => {
    const r = await capturedRequest(120);
    const partial = await act(r.uuid, 'refund', '20,50');
    assert.match(partial.confirm.body, /Refund twenty euros and fifty cents \(€20\.50\)/);
    assert.match(partial.page.body, /Done\./);
    let d = await api(r.uuid);
    assert.equal(d.status, 'CAPTURED');
    assert.equal(d.amount_refunded, 20.5);
    const full = await act(r.uuid, 'refund');
    assert.match(full.confirm.body, /ninety-nine euros and fifty cents/);
    d = await api(r.uuid);
    assert.equal(d.status, 'REFUNDED');
    assert.equal(d.amount_refunded, 120);
    const history = await t.repos.paymentRequests.history(r.uuid);
    assert.deepEqual(history.at(-1) && [history.at(-1)?.to_status, history.at(-1)?.source, history.at(-1)?.actor], [
      'REFUNDED',
      'admin',
      'frontdesk',
    ]);
    const entries = await t.repos.audit.list({ paymentRequestId: r.uuid, limit: 10 });
    assert.deepEqual(
      entries.map((e) => [e.action, e.outcome, e.detail.amount]),
      [
        // No amount typed: all that was left, as the confirmation showed it.
        ['refund', 'ok', 9950],
        ['refund', 'ok', 2050],
      ],
    );
    const detail = await c.get(`/control/requests/${r.uuid}`);
    assert.match(detail.body, /No action is possible in this status/);
    // The ledger: the hold's capture and both refunds (named in words), each with its provider state.
    const page = withoutLabels(detail.body);
    const ledger = page.slice(page.indexOf('id="ledger-h"'), page.indexOf('id="history-h"'));
    const kinds = [...ledger.matchAll(/<tr><td>[^<]*<\/td><td>(\w+)<\/td>[\s\S]*?class="status (\w+)"/g)].map(
      (m) => `${m[1]}:${m[2]}`,
    );
    assert.deepEqual(kinds.slice(-3), ['Capture:succeeded', 'Refund:succeeded', 'Refund:succeeded']);
  });

  test('capture (partial) and release of holds, in French words when the user reads French', async () => {
    const a = await createRequest(t, { request_type: 'IMPRINT', amount: 300 });
    await arrangeStatus(t.db, a.uuid, 'AUTHORISED_TO_VALIDATE');
    await c.get('/control/language/fr?back=/control/requests');
    const cap = await act(a.uuid, 'capture', '80');
    assert.match(cap.confirm.body, /Encaisser quatre-vingts euros/);
    assert.equal((await api(a.uuid)).status, 'CAPTURED');
    assert.equal((await api(a.uuid)).amount_captured, 80);
    await c.get('/control/language/en?back=/control/requests');

    const b = await createRequest(t, { request_type: 'IMPRINT', amount: 50 });
    await arrangeStatus(t.db, b.uuid, 'AUTHORISED_TO_VALIDATE');
    await act(b.uuid, 'release');
    assert.equal((await api(b.uuid)).status, 'CANCELLED');
  });

  test('an action the status does not allow is refused with its reason and changes nothing', async () => {
    const r = await capturedRequest(40);
    const confirm = await c.get(`/control/requests/${r.uuid}/confirm?action=cancel`);
    assert.equal(confirm.statusCode, 303, 'no confirmation page for a forbidden action');
    await c.get(`/control/requests/${r.uuid}`);
    const forced = await c.post(`/control/requests/${r.uuid}/cancel`, {});
    assert.equal(forced.statusCode, 303);
    const page = await c.get(String(forced.headers.location));
    assert.match(page.body, /Refused: Cannot cancel a payment request in terminal status/);
    assert.equal((await api(r.uuid)).status, 'CAPTURED');
    const tooMuch = await c.post(`/control/requests/${r.uuid}/refund`, { amount: '40.01' });
    assert.equal(tooMuch.statusCode, 303);
    assert.match((await c.get(String(tooMuch.headers.location))).body, /Refused: Refund amount must be/);
    assert.equal((await api(r.uuid)).amount_refunded, 0);
    const entries = await t.repos.audit.list({ paymentRequestId: r.uuid, limit: 10 });
    assert.deepEqual(
      entries.map((e) => [e.action, e.outcome]),
      [
        ['refund', 'refused'],
        ['cancel', 'refused'],
      ],
    );
  });

  test('cancel, resend (once per confirmation) and delete', async () => {
    const r = await createRequest(t, {});
    const resend = await act(r.uuid, 'resend');
    const nonce = /name="nonce" value="([^"]+)"/.exec(resend.confirm.body)?.[1] ?? '';
    // The same confirmation posted twice (a double click, a reload) queues one e-mail.
    await c.get(`/control/requests/${r.uuid}`);
    await c.post(`/control/requests/${r.uuid}/resend`, { nonce });
    const mails = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM email_outbox WHERE payment_request_id = $1 AND cause LIKE 'payment_link_resend:%'",
      [r.uuid],
    );
    assert.equal(mails.rows[0]?.n, 1);
    await act(r.uuid, 'cancel');
    assert.equal((await api(r.uuid)).status, 'CANCELLED');
    const del = await act(r.uuid, 'delete');
    assert.match(del.page.body, /Done\./);
    assert.equal((await t.call({ method: 'GET', url: `/api/payment-requests/${r.uuid}/` })).statusCode, 404);
    assert.equal((await c.get(`/control/requests/${r.uuid}`)).statusCode, 404);
  });

  test('an action form the schema refuses (an amount given twice, too long): refused, nothing moves', async () => {
    const r = await createRequest(t, { request_type: 'IMPRINT', amount: 100 });
    await arrangeStatus(t.db, r.uuid, 'AUTHORISED_TO_VALIDATE');
    const confirm = await c.get(`/control/requests/${r.uuid}/confirm?action=capture&amount=10`);
    const nonce = /name="nonce" value="([^"]+)"/.exec(confirm.body)?.[1] ?? '';
    for (const amount of [['10.00', '20.00'], '1'.repeat(101)]) {
      const sent = await c.post(`/control/requests/${r.uuid}/capture`, { amount, nonce });
      assert.equal(sent.statusCode, 303, sent.body);
      assert.equal(sent.headers.location, `/control/requests/${r.uuid}`);
      assert.match((await c.get(String(sent.headers.location))).body, /Some values are not valid; nothing was saved\./);
    }
    const after = await api(r.uuid);
    assert.deepEqual([after.status, after.amount_captured], ['AUTHORISED_TO_VALIDATE', 0]);
    assert.deepEqual(await t.repos.audit.list({ paymentRequestId: r.uuid, limit: 10 }), []);
  });

  test('a list address with a filter too long to be one: 400 saying which, nothing searched', async () => {
    const heading = (body: string) => /<h1[^>]*>([^<]*)<\/h1>/.exec(body)?.[1] ?? '';
    for (const query of [`q=${'a'.repeat(501)}`, `status=${'A'.repeat(101)}`, `guarantee=${'f'.repeat(101)}`]) {
      const r = await c.get(`/control/requests?${query}`);
      assert.equal(r.statusCode, 400, query);
      assert.equal(heading(r.body), 'This address holds a filter too long to be one. Nothing was searched.');
    }
    await c.get('/control/language/fr?back=/control/requests');
    const fr = await c.get(`/control/requests?q=${'a'.repeat(501)}`);
    await c.get('/control/language/en?back=/control/requests');
    assert.match(heading(fr.body), /^Cette adresse contient un filtre trop long/);
    // Too long to be a date or a page link: refused as a wrong one is, the filter named.
    const date = await c.get(`/control/requests?checkin_to=${'2'.repeat(101)}`);
    assert.equal(date.statusCode, 400);
    assert.match(heading(date.body), /^checkin_to: not a date/);
    const page = await c.get(`/control/requests?after=${'A'.repeat(201)}`);
    assert.equal(page.statusCode, 400);
    assert.match(heading(page.body), /^Invalid page link: /);
    await c.get('/control/language/de?back=/control/requests');
    const dePage = await c.get(`/control/requests?after=${'A'.repeat(201)}`);
    await c.get('/control/language/en?back=/control/requests');
    assert.match(heading(dePage.body), /^Dieser Seitenlink ist beschädigt/);
    // As long as a search box could hold, and an unknown status: the list, as before.
    assert.equal((await c.get(`/control/requests?q=${'a'.repeat(500)}&status=PAID`)).statusCode, 200);
  });
});
