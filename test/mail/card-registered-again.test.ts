import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runCommand } from '../../src/cli/index.ts';
import { addDays } from '../../src/domain/index.ts';
import { createDeferredPayments, deferredHoldsRepository } from '../../src/holds/index.ts';
import { sendDueEmails } from '../../src/mail/index.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { checkoutForm, detail, submitCard } from '../helpers/sandbox-checkout.ts';
import { auditResponses, createRequest, ENGINE } from '../helpers/test-app.ts';
import { type SmtpSink, startSmtpSink } from './smtp-sink.ts';

/** The day the job runs; the stay starts two days later, so its hold is due that day. */
const D = '2026-12-10';
const CHECKIN = addDays(D, 2);
const BLOCKED = '4000000000000341';
const ACCEPTED = '4242424242424242';
const SOFT_DECLINE = '4000000000009995';

describe(`another card after a failed guarantee: its own e-mail, and its time on the result page (${ENGINE})`, {
  timeout: 180_000,
}, () => {
  let t: ListeningApp;
  let smtp: SmtpSink;
  before(async () => {
    smtp = await startSmtpSink();
    t = await startListeningApp({ env: { SMTP_URL: smtp.url } });
  });
  after(async () => {
    if (t) {
      auditResponses(t);
      await t.close();
    }
    await smtp?.close();
  });

  const runJob = () =>
    createDeferredPayments(
      { holds: deferredHoldsRepository(t.db), runner: t.app.payreq.runner, cardTokens: t.app.payreq.cardTokens },
      D,
    );
  const registeredMails = (guest: string) =>
    smtp.messages.filter(
      (m) => m.envelopeTo.includes(guest) && m.subject.endsWith('your card is registered as a guarantee'),
    );

  async function guestRegisters(id: string, card: string) {
    const r = await submitCard(await checkoutForm(t, id), { number: card });
    assert.equal(r.status, 303, r.body);
  }

  test('one card-registered e-mail per registration, each naming its card; the result page shows the latest registration', async () => {
    const guest = 'second.card@example.com';
    const c = await createRequest(t, {
      request_type: 'IMPRINT',
      amount: 180,
      language: 'en',
      guest_email: guest,
      reservation_data: { checkin: CHECKIN },
    });
    await guestRegisters(c.uuid, BLOCKED);
    assert.equal((await detail(t, c.uuid)).status, 'AUTHORISED');
    // The first registration three days back: its time and the second's differ by date.
    await t.db.query(
      `UPDATE status_history SET created_at = created_at - interval '3 days'
        WHERE payment_request_id = $1 AND to_status = 'AUTHORISED'`,
      [c.uuid],
    );
    await sendDueEmails(t.app.payreq);
    assert.equal(registeredMails(guest).length, 1, 'the first card');
    assert.equal((await runJob()).refused, 1);
    assert.equal((await detail(t, c.uuid)).status, 'ERROR', 'a failed guarantee');

    await guestRegisters(c.uuid, ACCEPTED);
    assert.equal((await detail(t, c.uuid)).status, 'AUTHORISED', 'the new card is registered');
    // Two rounds of the outbox: still one e-mail per registration.
    await sendDueEmails(t.app.payreq);
    await sendDueEmails(t.app.payreq);
    const mails = registeredMails(guest);
    assert.equal(mails.length, 2, mails.map((m) => m.subject).join(' | '));
    assert.ok(mails[0]?.text.includes('Card: 400000XXXXXX0341'), mails[0]?.text);
    assert.ok(mails[1]?.text.includes('Card: 424242XXXXXX4242'), mails[1]?.text);
    assert.notEqual(mails[0]?.messageId, mails[1]?.messageId, 'two e-mails, two Message-IDs');

    // A soft decline keeps a request AUTHORISED (AUTHORISED to AUTHORISED): not a registration.
    const soft = 'soft.decline@example.com';
    const s = await createRequest(t, {
      request_type: 'IMPRINT',
      amount: 60,
      language: 'en',
      guest_email: soft,
      reservation_data: { checkin: CHECKIN },
    });
    await guestRegisters(s.uuid, SOFT_DECLINE);
    assert.equal((await runJob()).refused, 0);
    const moves = await t.db.query<{ from_status: string; to_status: string }>(
      'SELECT from_status, to_status FROM status_history WHERE payment_request_id = $1 ORDER BY id DESC LIMIT 1',
      [s.uuid],
    );
    assert.deepEqual(moves.rows[0], { from_status: 'AUTHORISED', to_status: 'AUTHORISED' }, 'declined softly');
    await sendDueEmails(t.app.payreq);
    assert.equal(registeredMails(soft).length, 1, 'the registration only, not the declined hold');

    const history = await t.db.query<{ at: Date }>(
      `SELECT created_at AS at FROM status_history
        WHERE payment_request_id = $1 AND from_status = 'ERROR' AND to_status = 'AUTHORISED'`,
      [c.uuid],
    );
    const second = new Date(history.rows[0]?.at as Date);
    const first = new Date(second.getTime() - 3 * 86_400_000);
    const day = (d: Date) =>
      new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeZone: 'Europe/Paris' }).format(d);
    for (const url of [`/payment/${c.uuid}/result/`, `/payment/${c.uuid}/`]) {
      const page = await t.call({ method: 'GET', url, tenant: null });
      assert.equal(page.statusCode, 200);
      const registeredOn = /<dt>Registered on<\/dt><dd>([^<]+)<\/dd>/.exec(page.body)?.[1] ?? '';
      assert.ok(registeredOn.startsWith(day(second)), `${url}: ${registeredOn}, the second card's day`);
      assert.ok(!registeredOn.startsWith(day(first)), `${url}: not the first card's day`);
      assert.ok(page.body.includes('424242XXXXXX4242'), 'the card registered last');
    }
  });

  test('a new card after a refused renewal (the old hold still guarantees): its own e-mail, and its time on the page', async () => {
    const checkin = '2027-07-10';
    const job = async (argv: string[]) => {
      const r = await runCommand(['job', 'run', ...argv, '--json'], {
        config: t.config,
        db: t.db,
        repos: t.repos,
        app: t.app.payreq,
      });
      assert.equal(r.exitCode, 0, r.stderr);
      return JSON.parse(r.stdout) as Record<string, number>;
    };
    const guest = 'renewal.refused@example.com';
    const c = await createRequest(t, {
      request_type: 'IMPRINT',
      amount: 250,
      language: 'en',
      guest_email: guest,
      reservation_data: { checkin, checkout: addDays(checkin, 6) },
    });
    await guestRegisters(c.uuid, ACCEPTED);
    await t.db.query(
      `UPDATE status_history SET created_at = created_at - interval '3 days'
        WHERE payment_request_id = $1 AND to_status = 'AUTHORISED'`,
      [c.uuid],
    );
    assert.equal((await job(['create_deferred_payments', '--date', addDays(checkin, -2)])).held, 1);
    // The card is stolen before the renewal: the bank refuses it, the old hold stays.
    await t.db.query(
      `UPDATE sandbox_tokens SET card_number = '4000000000009979'
        WHERE token IN (SELECT token FROM sandbox_transactions WHERE order_id = $1)`,
      [c.uuid],
    );
    assert.equal((await job(['renew_holds', '--date', addDays(checkin, 2)])).refused, 1);
    await sendDueEmails(t.app.payreq);
    assert.equal(registeredMails(guest).length, 1, 'the first card; a refused renewal registers nothing');

    await guestRegisters(c.uuid, '5555555555554444');
    const d = await detail(t, c.uuid);
    assert.equal(d.status, 'AUTHORISED_TO_VALIDATE', 'the old hold still guarantees');
    assert.equal(d.masked_pan, '555555XXXXXX4444');
    await sendDueEmails(t.app.payreq);
    const mails = registeredMails(guest);
    assert.equal(mails.length, 2, mails.map((m) => m.subject).join(' | '));
    assert.ok(mails[1]?.text.includes('Card: 555555XXXXXX4444'), mails[1]?.text);

    // The next renewal holds the new card: a renewal is not a registration.
    assert.equal((await job(['renew_holds', '--date', addDays(checkin, 2)])).renewed, 1);
    await sendDueEmails(t.app.payreq);
    assert.equal(registeredMails(guest).length, 2, 'no e-mail for the renewal');

    const today = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeZone: 'Europe/Paris' }).format(new Date());
    const page = await t.call({ method: 'GET', url: `/payment/${c.uuid}/result/`, tenant: null });
    const registeredOn = /<dt>Registered on<\/dt><dd>([^<]+)<\/dd>/.exec(page.body)?.[1] ?? '';
    assert.ok(registeredOn.startsWith(today), `${registeredOn}: the new card's day, not three days ago`);
  });
});
