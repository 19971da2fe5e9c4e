import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addDays } from '../../src/domain/index.ts';
import { createDeferredPayments, deferredHoldsRepository } from '../../src/holds/index.ts';
import { sendDueEmails } from '../../src/mail/index.ts';
import { createEndpoint } from '../../src/webhooks/index.ts';
import { ControlClient, createUser } from '../control/control-client.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { checkoutForm, detail, eventually, submitCard } from '../helpers/sandbox-checkout.ts';
import { createRequest, ENGINE } from '../helpers/test-app.ts';
import { type SmtpSink, startSmtpSink } from '../mail/smtp-sink.ts';

/** The day the job runs; the stays start two days later, so their hold is due that day. */
const D = '2026-12-10';
const CHECKIN = addDays(D, 2);
const BLOCKED = '4000000000000341';
const ACCEPTED = '4242424242424242';
const HOTEL = 'reception@hotel-des-tests.example';

describe(`a refused hold: the hotel is told, the guest gives another card, the next run holds it (${ENGINE})`, {
  timeout: 180_000,
}, () => {
  let t: ListeningApp;
  let smtp: SmtpSink;
  before(async () => {
    smtp = await startSmtpSink();
    t = await startListeningApp({ env: { SMTP_URL: smtp.url } });
    // The hotel reads German; its guest (below) French: each gets its own language only.
    await t.repos.tenants.update(t.tenant.tenantId, { contact_email: HOTEL, digest_language: 'de' });
  });
  after(async () => {
    await t?.close();
    await smtp?.close();
  });

  const runJob = () =>
    createDeferredPayments(
      { holds: deferredHoldsRepository(t.db), runner: t.app.payreq.runner, cardTokens: t.app.payreq.cardTokens },
      D,
    );
  const mailTo = (address: string) => smtp.messages.filter((m) => m.envelopeTo.includes(address));
  const settings = (patch: Record<string, boolean | number | string | null>) =>
    t.repos.tenants.update(t.tenant.tenantId, patch);

  /** The guest types `card` on the sandbox's form for the request's link, as a browser posts it. */
  async function guestRegisters(id: string, card: string, expiry: { month?: string; year?: string } = {}) {
    const r = await submitCard(await checkoutForm(t, id), { number: card, ...expiry });
    assert.equal(r.status, 303, r.body);
  }

  async function imprint(language: string, guest: string) {
    return createRequest(t, {
      request_type: 'IMPRINT',
      amount: 180,
      language,
      guest_email: guest,
      reservation_data: { checkin: CHECKIN },
    });
  }

  test('a card blocked after registration: ERROR, alert and e-mails, then a new card on the same link is held', async () => {
    const guest = 'jeanne.blocked@example.com';
    // An endpoint subscribed to this one type: the type is known, and its event is delivered.
    const hook = await createEndpoint(
      t.repos,
      t.app.payreq.secretKeys,
      { production: false, allowPrivate: true },
      { tenantId: t.tenant.tenantId, url: 'http://127.0.0.1:9/hook', events: ['payment_request.guarantee_failed'] },
    );
    const c = await imprint('fr', guest);
    await guestRegisters(c.uuid, BLOCKED);
    assert.equal((await detail(t, c.uuid)).status, 'AUTHORISED', 'the blocked card registers');
    // A link older than its lifetime (the booking was made long ago): the failure revives it.
    await t.db.query("UPDATE payment_requests SET link_expires_at = now() - interval '1 day' WHERE id = $1", [c.uuid]);

    const first = await runJob();
    assert.equal(first.refused, 1);
    const d = await detail(t, c.uuid);
    assert.equal(d.status, 'ERROR');
    assert.equal(d.order_cycle, 'OPEN');
    assert.equal(d.guarantee_failures, 1);
    assert.ok(typeof d.guarantee_failed_at === 'string');
    assert.ok(
      Date.parse(String(d.link_expires_at)) > Date.parse(`${CHECKIN}T00:00:00Z`),
      `the link lives to the end of the check-in day: ${d.link_expires_at}`,
    );

    // The event, on the feed (and so on webhooks, which are fed the same rows). Awaited: the feed
    // holds new events back while an older transaction is open anywhere on a shared server.
    const types = await eventually(async () => {
      const feed = await t.call({ method: 'GET', url: '/api/events/?limit=1000' });
      const seen = (feed.json() as { type: string; data: { uuid: string } }[])
        .filter((e) => e.data.uuid === c.uuid)
        .map((e) => e.type);
      return seen.at(-1) === 'payment_request.guarantee_failed' ? seen : undefined;
    }, 'the guarantee_failed event on the feed');
    assert.equal(types.at(-1), 'payment_request.guarantee_failed', types.join());
    const deliveries = await t.db.query<{ type: string }>(
      `SELECT e.type FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
        WHERE d.endpoint_id = $1 AND d.payment_request_id = $2`,
      [hook.id, c.uuid],
    );
    assert.deepEqual(
      deliveries.rows.map((r) => r.type),
      ['payment_request.guarantee_failed'],
      'the webhook gets it, and only it',
    );

    // The hotel at its contact address, the guest in French with the same link.
    await sendDueEmails(t.app.payreq);
    const hotel = await eventually(async () => mailTo(HOTEL)[0], 'the hotel e-mail');
    // In the hotel's language alone (its digest's), as every e-mail to the hotel.
    assert.match(hotel.subject, new RegExp(`: Garantie abgelehnt: ${c.reference}$`));
    assert.doesNotMatch(hotel.subject + hotel.text, /Guarantee refused|Garantie refusée|The request now waits/);
    assert.match(hotel.html, /<html lang="de"/);
    assert.ok(hotel.text.includes(c.reference), hotel.text);
    // The bank's answer in words, without the provider's code after them; no status code.
    assert.match(hotel.text, /^Grund: Von der Bank abgelehnt$/m);
    assert.doesNotMatch(hotel.text, /do_not_honour/);
    assert.doesNotMatch(hotel.text, /\bERROR\b/);
    assert.doesNotMatch(hotel.html, /\bERROR\b/);
    assert.ok(hotel.text.includes('Der Gast hat eine E-Mail erhalten'), hotel.text);
    assert.ok(hotel.text.includes(`Anfrage öffnen: ${t.baseUrl}/control/requests/${c.uuid}`), hotel.text);
    const asked = mailTo(guest).filter((m) => m.subject.includes('n’a pas pu garantir'));
    assert.equal(
      asked.length,
      1,
      mailTo(guest)
        .map((m) => m.subject)
        .join(' | '),
    );
    assert.ok(asked[0]?.text.includes(`${t.baseUrl}/payment/${c.uuid}/`), asked[0]?.text);
    assert.ok(asked[0]?.text.includes('Enregistrer une autre carte'), asked[0]?.text);
    const guestMails = mailTo(guest).length;
    const hotelMails = mailTo(HOTEL).length;

    // The same link shows the card form again, saying why.
    const page = await t.call({ method: 'GET', url: `/payment/${c.uuid}/` });
    assert.equal(page.statusCode, 200);
    assert.ok(page.body.includes('Votre banque a refusé la garantie demandée sur votre carte'), page.body);
    assert.ok(page.body.includes('name="card_number"'), 'the card form');

    // Nothing to do on the next run while no new card came; no e-mail twice.
    assert.equal((await runJob()).considered, 0);
    await sendDueEmails(t.app.payreq);
    assert.equal(mailTo(guest).length, guestMails);
    assert.equal(mailTo(HOTEL).length, hotelMails);

    await guestRegisters(c.uuid, ACCEPTED);
    const again = await detail(t, c.uuid);
    assert.equal(again.status, 'AUTHORISED', 'ERROR → AUTHORISED: the new card is registered');
    assert.equal(again.masked_pan, '424242XXXXXX4242');
    const second = await runJob();
    assert.equal(second.held, 1);
    const held = await detail(t, c.uuid);
    assert.equal(held.status, 'AUTHORISED_TO_VALIDATE', 'the new card is held');
    assert.equal(held.guarantee_failures, 1, 'the failure stays on record');
    const holds = await t.db.query<{ state: string }>(
      "SELECT state FROM money_ledger WHERE payment_request_id = $1 AND kind = 'hold' ORDER BY id",
      [c.uuid],
    );
    assert.deepEqual(
      holds.rows.map((r) => r.state),
      ['refused', 'succeeded'],
      'one ledger row per hold call, one hold placed',
    );
  });

  test('the guest is asked at most guarantee_max_asks times, never when guarantee_ask_guest is off; the hotel each time', async () => {
    await settings({ guarantee_max_asks: 1 });
    try {
      const guest = 'max.asks@example.com';
      const c = await imprint('en', guest);
      for (let i = 0; i < 2; i++) {
        await guestRegisters(c.uuid, BLOCKED);
        assert.equal((await runJob()).refused, 1);
      }
      await sendDueEmails(t.app.payreq);
      const asks = mailTo(guest).filter((m) => m.subject.includes('could not guarantee your booking'));
      assert.equal(asks.length, 1, 'one ask, then the limit');
      assert.equal(asks[0]?.subject, 'Hôtel des Tests: your card could not guarantee your booking');
      const alerts = mailTo(HOTEL).filter((m) => m.text.includes(c.reference));
      assert.equal(alerts.length, 2, 'the hotel hears of each refusal');
      assert.ok(alerts[1]?.text.includes('Der Gast wurde nicht automatisch angeschrieben'), alerts[1]?.text);
      assert.equal((await detail(t, c.uuid)).guarantee_failures, 2);
      assert.equal((await detail(t, c.uuid)).status, 'ERROR', 'past the limit the request still waits, never REFUSED');

      await settings({ guarantee_max_asks: 2, guarantee_ask_guest: false });
      const quiet = 'not.asked@example.com';
      const q = await imprint('de', quiet);
      await guestRegisters(q.uuid, BLOCKED);
      assert.equal((await runJob()).refused, 1);
      await sendDueEmails(t.app.payreq);
      assert.deepEqual(
        mailTo(quiet).filter((m) => m.subject.includes('nicht garantieren')),
        [],
        'guarantee_ask_guest off: the guest is not e-mailed',
      );
      assert.equal(mailTo(HOTEL).filter((m) => m.text.includes(q.reference)).length, 1);
    } finally {
      await settings({ guarantee_max_asks: 2, guarantee_ask_guest: true });
    }
  });

  test('the guest e-mail in German; without a contact address the hotel gets no e-mail but the back office shows it', async () => {
    await settings({ contact_email: null });
    try {
      const guest = 'hans.blocked@example.com';
      const c = await imprint('de', guest);
      await guestRegisters(c.uuid, BLOCKED);
      assert.equal((await runJob()).refused, 1);
      await sendDueEmails(t.app.payreq);
      const ask = mailTo(guest).find((m) => m.subject.includes('konnte Ihre Reservierung nicht garantieren'));
      assert.ok(
        ask,
        mailTo(guest)
          .map((m) => m.subject)
          .join(' | '),
      );
      assert.ok(ask.text.includes('Andere Karte hinterlegen'), ask.text);
      assert.equal(mailTo(HOTEL).filter((m) => m.text.includes(c.reference)).length, 0);

      await createUser(t, 'guarantee-desk', t.tenant.tenantId);
      const office = await new ControlClient(t).signedIn('guarantee-desk');
      const page = await office.get(`/control/requests/${c.uuid}`);
      assert.equal(page.statusCode, 200);
      assert.ok(page.body.includes('Needs attention: the guarantee failed'), page.body);
      // Why, in words; the provider's own message stays out of the page (the words say it).
      assert.ok(page.body.includes('Refused by the bank'), 'why');
      assert.ok(!page.body.includes('sandbox: the bank refused the hold'), 'the provider’s message after the words');
      const list = await office.get('/control/requests?guarantee=failed');
      assert.ok(list.body.includes(c.reference), 'the list filter finds it');
      const failed = await t.repos.guarantees.failed(t.tenant.tenantId);
      assert.ok(failed.some((f) => f.id === c.uuid));

      // The hotel may still cancel: ERROR is not terminal.
      const cancel = await t.call({ method: 'POST', url: `/api/payment-requests/${c.uuid}/cancel/` });
      assert.equal(cancel.statusCode, 200, cancel.body);
      const gone = await t.repos.guarantees.failed(t.tenant.tenantId);
      assert.ok(!gone.some((f) => f.id === c.uuid), 'a cancelled request needs no attention');
    } finally {
      await settings({ contact_email: HOTEL });
    }
  });

  test('a card that expires before its hold is refused at registration, with a clear message', async () => {
    const now = new Date();
    const today = now.toISOString().slice(0, 10);
    // Check-in in about three months; the card lapses at the end of this month.
    const checkin = addDays(today, 95);
    const c = await createRequest(t, {
      request_type: 'IMPRINT',
      amount: 90,
      language: 'en',
      reservation_data: { checkin },
    });
    await guestRegisters(c.uuid, ACCEPTED, {
      month: String(now.getUTCMonth() + 1),
      year: String(now.getUTCFullYear()),
    });
    const d = await detail(t, c.uuid);
    assert.equal(d.status, 'ERROR', 'refused: the hold would fail');
    assert.equal(d.masked_pan, '', 'the card is not kept');
    const result = await t.call({ method: 'GET', url: `/payment/${c.uuid}/result/` });
    assert.ok(result.body.includes('This card expires too soon'), result.body);
    const holdMonth = new Intl.DateTimeFormat('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(
      new Date(`${addDays(checkin, -2).slice(0, 7)}-01T12:00:00Z`),
    );
    assert.ok(result.body.includes(`valid until at least ${holdMonth}`), result.body);
    const form = await t.call({ method: 'GET', url: `/payment/${c.uuid}/` });
    assert.ok(form.body.includes('This card expires too soon') || form.body.includes('expires before'), form.body);

    // A card valid long enough then registers on the same link.
    await guestRegisters(c.uuid, ACCEPTED, { month: '12', year: String(now.getUTCFullYear() + 2) });
    assert.equal((await detail(t, c.uuid)).status, 'AUTHORISED');
  });
});
