import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sendPaymentReminders } from '../../src/jobs/index.ts';
import { sendDueEmails } from '../../src/mail/index.ts';
import {
  auditResponses,
  createRequest,
  ENGINE,
  newKey,
  startTestApp,
  type TenantWithKey,
  type TestApp,
} from '../helpers/test-app.ts';
import { type SmtpSink, startSmtpSink } from './smtp-sink.ts';

const HOUR = 3600_000;

/**
 * A time as a guest reads it, with its zone: the zone's name in the reader's language, on the
 * hotel's clock (Paris: CET/CEST, UTC+1/+2, MEZ/MESZ; New York: GMT-5/-4, UTC−5/−4).
 */
const TIME_WITH_ZONE: Record<string, Record<string, RegExp>> = {
  'Europe/Paris': {
    en: /\d{1,2} \w+ \d{4} at \d{2}:\d{2} (CET|CEST)/,
    fr: /\d{1,2} \S+ \d{4} à \d{2}:\d{2} UTC\+[12]/,
    de: /\d{1,2}\. \S+ \d{4} um \d{2}:\d{2} (MEZ|MESZ)/,
  },
  'America/New_York': {
    en: /\d{1,2} \w+ \d{4} at \d{2}:\d{2} GMT-[45]/,
    fr: /\d{1,2} \S+ \d{4} à \d{2}:\d{2} UTC−[45]/,
    de: /\d{1,2}\. \S+ \d{4} um \d{2}:\d{2} GMT-[45]/,
  },
};

describe(`guest pages and e-mails give times with their zone (${ENGINE})`, () => {
  let t: TestApp;
  let smtp: SmtpSink;
  const hotels: Record<string, TenantWithKey> = {};
  before(async () => {
    smtp = await startSmtpSink();
    t = await startTestApp({ env: { SMTP_URL: smtp.url } });
    for (const timezone of Object.keys(TIME_WITH_ZONE)) {
      const tenant = await t.repos.tenants.create({ name: `Hôtel ${timezone}`, timezone });
      await t.repos.tenants.update(tenant.id, { reminders: true });
      hotels[timezone] = await newKey(t.repos, tenant.id);
    }
  });
  after(async () => {
    auditResponses(t);
    await t.close();
    await smtp.close();
  });

  const plain = (text: string) => text.replace(/[\u00a0\u202f]/g, ' ');
  const mailTo = (address: string) => smtp.messages.filter((m) => m.envelopeTo.includes(address));

  for (const [timezone, languages] of Object.entries(TIME_WITH_ZONE)) {
    test(`a hotel in ${timezone}: the receipt, the guest's page and a reminder say which clock, in fr, en and de`, async () => {
      const hotel = hotels[timezone] as TenantWithKey;
      for (const [language, time] of Object.entries(languages)) {
        // A paid deposit: the receipt's date of payment, and the guest's page.
        const guest = `zone.${language}.${timezone.replace('/', '.')}@example.com`.toLowerCase();
        const paid = await createRequest(
          t,
          { request_type: 'DEPOSIT', amount: 80, language, guest_email: guest },
          hotel,
        );
        await t.app.payreq.notifications.apply('sandbox', {
          eventId: `evt-${randomUUID()}`,
          paymentRequestId: paid.uuid,
          outcome: 'paid',
          amountCents: 8000,
          currency: 'EUR',
          transactionId: `tx-${randomUUID()}`,
          maskedPan: '424242XXXXXX4242',
          expiryMonth: 9,
          expiryYear: 2029,
        });
        await sendDueEmails(t.app.payreq);
        const receipt = mailTo(guest)[0];
        assert.ok(receipt, `${language}: the receipt`);
        const label = { fr: 'Date du paiement', en: 'Date of payment', de: 'Zahlungsdatum' }[language];
        const line = plain(receipt.text)
          .split('\n')
          .find((l) => l.startsWith(`${label}${language === 'fr' ? ' ' : ''}: `));
        assert.match(line ?? '', time, `${language} receipt: ${receipt.text}`);
        assert.match(plain(receipt.html), time, `${language} receipt, HTML`);
        const page = await t.call({ method: 'GET', url: `/payment/${paid.uuid}/result/`, tenant: null });
        assert.equal(page.statusCode, 200);
        const shown = new RegExp(`<dt>${label}</dt><dd>([^<]+)</dd>`).exec(page.body)?.[1] ?? '';
        assert.match(plain(shown), time, `${language} page: ${shown}`);

        // A reminder: until when the link can be paid.
        const unpaidGuest = `remind.${guest}`;
        const unpaid = await createRequest(t, { request_type: 'DEPOSIT', language, guest_email: unpaidGuest }, hotel);
        const created = (
          await t.db.query<{ created_at: Date }>('SELECT created_at FROM payment_requests WHERE id = $1', [unpaid.uuid])
        ).rows[0]?.created_at as Date;
        await sendPaymentReminders({ dayPlan: t.app.payreq.repos.dayPlan }, new Date(created.getTime() + 49 * HOUR));
        await sendDueEmails(t.app.payreq);
        const reminder = mailTo(unpaidGuest).find((m) => /rappel|reminder|Erinnerung/.test(m.subject));
        assert.ok(reminder, `${language}: the reminder`);
        const until = {
          fr: 'Ce lien est valable jusqu’au ',
          en: 'This link can be used until ',
          de: 'Dieser Link ist bis ',
        }[language] as string;
        const sentence = plain(reminder.text)
          .split('\n')
          .find((l) => l.startsWith(until));
        assert.match(sentence ?? '', time, `${language} reminder: ${reminder.text}`);
      }
    });
  }
});
