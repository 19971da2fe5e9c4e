import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { runCommand } from '../../src/cli/index.ts';
import { sendDueEmails } from '../../src/mail/index.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { createRequest, ENGINE, newKey, startTestApp, type TenantWithKey, type TestApp } from '../helpers/test-app.ts';
import { type SmtpSink, startSmtpSink } from './smtp-sink.ts';

describe(`guest e-mails: subjects per type, card registered, deposit receipt, sender (${ENGINE})`, () => {
  let t: TestApp;
  let smtp: SmtpSink;
  let mailing: TenantWithKey;

  before(async () => {
    smtp = await startSmtpSink();
    t = await startTestApp({ env: { SMTP_URL: smtp.url } });
    const tenant = await t.repos.tenants.create({ name: 'Hôtel du Lac', confirmationEmail: true });
    mailing = await newKey(t.repos, tenant.id);
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  const mailTo = (address: string) => smtp.messages.filter((m) => m.envelopeTo.includes(address));
  const notify = (uuid: string, outcome: 'registered' | 'paid', extra: Record<string, unknown> = {}) =>
    t.app.payreq.notifications.apply('sandbox', {
      eventId: `evt-${randomUUID()}`,
      paymentRequestId: uuid,
      outcome,
      transactionId: `tx-${randomUUID()}`,
      maskedPan: '424242XXXXXX4242',
      expiryMonth: 9,
      expiryYear: 2029,
      ...extra,
    });

  test('the payment link subject says what is asked: a deposit or a guarantee, in the guest language', async () => {
    const cases = [
      ['DEPOSIT', 'fr', 'Hôtel du Lac : acompte pour votre réservation'],
      ['IMPRINT', 'fr', 'Hôtel du Lac : garantie de votre réservation'],
      ['DEPOSIT', 'en', 'Hôtel du Lac: deposit for your booking'],
      ['IMPRINT', 'en', 'Hôtel du Lac: secure your booking'],
      ['DEPOSIT', 'de', 'Hôtel du Lac: Anzahlung für Ihre Reservierung'],
      ['IMPRINT', 'de', 'Hôtel du Lac: Garantie Ihrer Reservierung'],
    ] as const;
    for (const [type, language, subject] of cases) {
      const guest = `link.${type}.${language}@example.com`.toLowerCase();
      await createRequest(t, { request_type: type, language, guest_email: guest, amount: 80 }, mailing);
      await sendDueEmails(t.app.payreq);
      assert.deepEqual(
        mailTo(guest).map((m) => m.subject),
        [subject],
      );
    }
  });

  test('a registered card: one e-mail with the card, the maximum amount and when a hold may come', async () => {
    const guest = 'imprint.card@example.com';
    const { uuid, reference } = await createRequest(t, {
      request_type: 'IMPRINT',
      amount: 240,
      language: 'en',
      guest_email: guest,
    });
    await notify(uuid, 'registered', { cardToken: 'tok_test' });
    await notify(uuid, 'registered', { cardToken: 'tok_test' });
    await sendDueEmails(t.app.payreq);
    await sendDueEmails(t.app.payreq);
    const got = mailTo(guest);
    assert.equal(got.length, 1, 'once, however often it is notified');
    const m = got[0];
    assert.ok(m);
    assert.equal(m.subject, 'Hôtel des Tests: your card is registered as a guarantee');
    assert.ok(m.text.includes('Nothing has been charged.'), m.text);
    assert.ok(m.text.includes('Card: 424242XXXXXX4242 (expires 09/2029)'), m.text);
    assert.ok(m.text.includes('Maximum amount guaranteed: €240.00'), m.text);
    // Check-in 24 December: the hold may come two days before, for 5 days at most (the hotel's
    // 6, shortened by the Visa network's 4 days 18 hours: 424242 is a Visa).
    assert.ok(m.text.includes('From 22 December 2026, Hôtel des Tests may hold up to this amount'), m.text);
    assert.ok(m.text.includes('for 5 days at most'), m.text);
    assert.ok(m.text.includes(`Reference: ${reference}`));
    assert.ok(m.html.includes('424242XXXXXX4242'));
  });

  test('a paid deposit: the receipt names the card and the date of payment, in the hotel time zone', async () => {
    const guest = 'deposit.receipt@example.com';
    const { uuid } = await createRequest(t, {
      request_type: 'DEPOSIT',
      amount: 120.5,
      language: 'fr',
      guest_email: guest,
    });
    await notify(uuid, 'paid', { amountCents: 12050, currency: 'EUR' });
    await sendDueEmails(t.app.payreq);
    const m = mailTo(guest)[0];
    assert.ok(m);
    assert.equal(m.subject, 'Hôtel des Tests : confirmation de votre acompte');
    assert.ok(m.text.includes('Carte\u00a0: 424242XXXXXX4242 (expire fin 09/2029)'), m.text);
    const paidOn = new Intl.DateTimeFormat('fr-FR', { dateStyle: 'long', timeZone: 'Europe/Paris' }).format(new Date());
    assert.ok(m.text.includes(`Date du paiement\u00a0: ${paidOn}`), m.text);
  });

  /** A registered card held before arrival: money the provider holds for real. */
  async function heldImprint(guest: string, language: string, amount: number) {
    const r = await createRequest(t, { request_type: 'IMPRINT', amount, language, guest_email: guest });
    await notify(r.uuid, 'registered', { cardToken: 'tok_test' });
    await arrangeStatus(t.db, r.uuid, 'AUTHORISED_TO_VALIDATE');
    return r;
  }
  const act = async (uuid: string, action: string, payload?: object) => {
    const r = await t.call({
      method: 'POST',
      url: `/api/payment-requests/${uuid}/${action}/`,
      ...(payload ? { payload } : {}),
    });
    assert.equal(r.statusCode, 200, r.body);
  };
  const subjects = (guest: string) => mailTo(guest).map((m) => m.subject);
  /** Amounts are formatted with no-break spaces (180,00 €): compared as plain spaces. */
  const plain = (text: string | undefined) => (text ?? '').replace(/[\u00a0\u202f]/g, ' ');

  test('a no-show capture, then each refund: one e-mail each, in the guest language, with the amount that moved', async () => {
    const guest = 'noshow.refunds@example.com';
    const { uuid, reference } = await heldImprint(guest, 'de', 300);
    await act(uuid, 'capture', { amount: 180 });
    await act(uuid, 'refund', { amount: 50 });
    await act(uuid, 'refund', { amount: 30.5 });
    await sendDueEmails(t.app.payreq);
    await sendDueEmails(t.app.payreq);
    assert.deepEqual(subjects(guest).sort(), [
      'Hôtel des Tests: Erstattung auf Ihre Karte',
      'Hôtel des Tests: Erstattung auf Ihre Karte',
      'Hôtel des Tests: Ihre Karte ist als Garantie hinterlegt',
      'Hôtel des Tests: Ihre Karte wurde belastet',
    ]);
    const capture = mailTo(guest).find((m) => m.subject.endsWith('Ihre Karte wurde belastet'));
    assert.ok(plain(capture?.text).includes('Hôtel des Tests hat 180,00 € von der Karte abgebucht'), capture?.text);
    assert.ok(capture?.text.includes('424242XXXXXX4242'), capture?.text);
    assert.ok(capture?.text.includes(reference), capture?.text);
    const refunds = mailTo(guest)
      .filter((m) => m.subject.endsWith('Erstattung auf Ihre Karte'))
      .map((m) => /Erstatteter Betrag: ([^\n]+)/.exec(plain(m.text))?.[1]);
    assert.deepEqual(refunds.sort(), ['30,50 €', '50,00 €']);
  });

  test('an IMPRINT link e-mail says the card will be registered, not that it is, in each language', async () => {
    const cases = [
      ['fr', 'Votre carte sera enregistrée en garantie', 'Votre carte est enregistrée'],
      ['en', 'Your card will be registered as a guarantee', 'Your card is registered'],
      ['de', 'Ihre Karte wird als Garantie hinterlegt', 'Ihre Karte ist als Garantie hinterlegt'],
    ] as const;
    for (const [language, future, past] of cases) {
      const guest = `link.future.${language}@example.com`;
      await createRequest(t, { request_type: 'IMPRINT', language, guest_email: guest, amount: 80 }, mailing);
      await sendDueEmails(t.app.payreq);
      const [link] = mailTo(guest);
      assert.ok(link?.text.includes(future), link?.text);
      assert.ok(!link?.text.includes(past), link?.text);
      assert.ok(!(link?.html ?? '').includes(past), 'the HTML part too');
    }
  });

  test('a capture e-mail says why the hotel charged the card, and its note, in the guest language', async () => {
    const cases = [
      ['en', 'damage', 'Reason: Damage', 'The hotel’s note: Broken lamp'],
      ['fr', 'extras', 'Motif : Minibar et extras', 'Précision de l’établissement : Broken lamp'],
      ['de', 'no_show', 'Grund: Nichterscheinen (No-Show)', 'Hinweis der Unterkunft: Broken lamp'],
    ] as const;
    for (const [language, reason, reasonLine, noteLine] of cases) {
      const guest = `capture.why.${language}@example.com`;
      const { uuid } = await heldImprint(guest, language, 120);
      await act(uuid, 'capture', { amount: 40, reason, note: 'Broken lamp' });
      await sendDueEmails(t.app.payreq);
      const capture = mailTo(guest).find((m) => m.text.includes('Broken lamp'));
      assert.ok(plain(capture?.text).includes(reasonLine), capture?.text);
      assert.ok(plain(capture?.text).includes(noteLine), capture?.text);
      assert.ok(plain(capture?.html).includes('Broken lamp'), 'the HTML part too');
    }
    // Without a reason nor a note, the e-mail says nothing of either.
    const guest = 'capture.bare@example.com';
    const { uuid } = await heldImprint(guest, 'en', 60);
    await act(uuid, 'capture');
    await sendDueEmails(t.app.payreq);
    const bare = mailTo(guest).find((m) => m.subject.endsWith('an amount was charged to your card'));
    assert.ok(bare, subjects(guest).join(' | '));
    assert.ok(!bare.text.includes('Reason') && !bare.text.includes('note'), bare.text);
  });

  test('a released hold: one e-mail saying nothing was charged, with the amount that was held', async () => {
    const guest = 'released.hold@example.com';
    const { uuid } = await heldImprint(guest, 'en', 95);
    await act(uuid, 'release');
    await sendDueEmails(t.app.payreq);
    const released = mailTo(guest).filter(
      (m) => m.subject === 'Hôtel des Tests: the guarantee on your card is released',
    );
    assert.equal(released.length, 1, subjects(guest).join(' | '));
    assert.ok(
      plain(released[0]?.text).includes('released the guarantee of €95.00 on your card. Nothing has been charged.'),
      released[0]?.text,
    );
    // A refused or failed move tells the guest nothing: only what happened is mailed.
    assert.equal(mailTo(guest).length, 2, 'card registered, then released');
  });

  test('payreq tenant update --sender-email sets the From address of the next e-mails', async () => {
    const r = await runCommand(
      [
        'tenant',
        'update',
        '--tenant',
        mailing.tenantId,
        '--sender-email',
        'reservations@hotel-du-lac.example',
        '--json',
      ],
      { config: t.config, db: t.db, repos: t.repos, app: t.app.payreq },
    );
    assert.equal(r.exitCode, 0, r.stderr);
    const guest = 'sender.check@example.com';
    await createRequest(t, { guest_email: guest }, mailing);
    await sendDueEmails(t.app.payreq);
    const m = mailTo(guest)[0];
    assert.ok(m);
    assert.equal(m.envelopeFrom, 'reservations@hotel-du-lac.example');
  });
});
