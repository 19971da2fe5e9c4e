import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runCommand } from '../../src/cli/index.ts';
import { addDays, localDate } from '../../src/domain/index.ts';
import { sendDailyDigests } from '../../src/jobs/index.ts';
import { sendDueEmails } from '../../src/mail/index.ts';
import { remittancesRepository } from '../../src/payouts/index.ts';
import { ControlClient, createUser } from '../control/control-client.ts';
import { registerSandboxCard } from '../helpers/fixtures.ts';
import { createRequest, ENGINE, startTestApp, type TenantWithKey, type TestApp } from '../helpers/test-app.ts';
import { type SmtpSink, startSmtpSink } from '../mail/smtp-sink.ts';

const INSUFFICIENT_FUNDS = '4000000000009995';
const RENEWAL_REFUSED = '4000000000000044';
const STOLEN = '4000000000009979';
const FRONT_DESK = 'reception@hotel-seen.example';

/**
 * A hold the bank declines softly before the check-in day is seen by the hotel before it becomes
 * final: on the Today page, in the request's banner, in the digest, and in one e-mail to the
 * hotel in its own language, however many mornings it is declined again.
 */
describe(`a soft decline is seen before it is final (${ENGINE})`, { timeout: 180_000 }, () => {
  let t: TestApp;
  let smtp: SmtpSink;
  let hotel: TenantWithKey;
  let desk: ControlClient;
  before(async () => {
    smtp = await startSmtpSink();
    t = await startTestApp({ env: { SMTP_URL: smtp.url } });
    hotel = await t.newTenant('Hotel Seen');
    await t.repos.tenants.update(hotel.tenantId, {
      timezone: 'Europe/Paris',
      contact_email: FRONT_DESK,
      digest_email: true,
      digest_language: 'de',
    });
    await createUser(t, 'desk-seen', hotel.tenantId);
    desk = await new ControlClient(t, '10.6.4.2').signedIn('desk-seen');
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  const cli = async (argv: string[]) => {
    const r = await runCommand(argv, { config: t.config, db: t.db, repos: t.repos, app: t.app.payreq });
    assert.equal(r.exitCode, 0, r.stderr);
    return JSON.parse(r.stdout);
  };
  const holdJob = (date: string) => cli(['job', 'run', 'create_deferred_payments', '--date', date, '--json']);
  const renewJob = (date: string) => cli(['job', 'run', 'renew_holds', '--date', date, '--json']);
  const toHotel = () => smtp.messages.filter((m) => m.envelopeTo.includes(FRONT_DESK));
  async function imprint(checkin: string, card: string, checkout = addDays(checkin, 2)) {
    const c = await createRequest(
      t,
      { request_type: 'IMPRINT', amount: 180, reservation_data: { checkin, checkout } },
      hotel,
    );
    await registerSandboxCard(t, c.uuid, card);
    return c;
  }

  test('Today, the banner, the digest, and one e-mail to the hotel in its language', async () => {
    const checkin = addDays(localDate('Europe/Paris', new Date()), 30);
    const c = await imprint(checkin, INSUFFICIENT_FUNDS);
    for (const day of [addDays(checkin, -2), addDays(checkin, -1)]) {
      assert.equal((await holdJob(day)).declined, 1, day);
    }
    await sendDueEmails(t.app.payreq);
    const alerts = toHotel();
    assert.equal(alerts.length, 1, 'the hotel is told once, not every morning');
    const alert = alerts[0];
    assert.ok(alert);
    assert.match(alert.subject, new RegExp(`vorläufig abgelehnt.*${c.reference}`), 'in the hotel’s language');
    assert.match(alert.text, /Unzureichende Deckung/);

    const today = await desk.get(`/control/today?tenant=${hotel.tenantId}`);
    assert.equal(today.statusCode, 200, today.body);
    const section = today.body.slice(today.body.indexOf('id="today-declined-h"'));
    assert.match(section.slice(0, section.indexOf('</section>')), new RegExp(c.reference));
    assert.match(section, /insufficient funds/);
    assert.match(section, /tried again tomorrow; final on/);

    const page = await desk.get(`/control/requests/${c.uuid}`);
    assert.match(page.body, /The bank declined the hold: tried again tomorrow/);
    assert.match(page.body, /Insufficient funds/);

    const noon = new Date(`${localDate('Europe/Paris', new Date())}T11:00:00Z`);
    await sendDailyDigests(
      { repos: { ...t.repos, remittances: remittancesRepository(t.db) }, inDoubtGraceSeconds: 120 },
      noon,
    );
    await sendDueEmails(t.app.payreq);
    const digest = toHotel().find((m) => /Ihr Tag/.test(m.subject));
    assert.ok(digest, 'the digest went');
    const list = digest.text.slice(digest.text.indexOf('Vorläufig abgelehnte Garantien'));
    assert.match(list.slice(0, list.indexOf('\n\n')), new RegExp(`${c.reference}.*unzureichende Deckung`));

    // The check-in day's run makes it final: off the list, a failed guarantee instead.
    assert.equal((await holdJob(checkin)).refused, 1);
    const after = await desk.get(`/control/today?tenant=${hotel.tenantId}`);
    const declined = after.body.slice(after.body.indexOf('id="today-declined-h"'));
    assert.doesNotMatch(declined.slice(0, declined.indexOf('</section>')), new RegExp(c.reference));
  });

  test('the failed-guarantee banner counts the refused holds the page lists', async () => {
    const checkin = addDays(localDate('Europe/Paris', new Date()), 40);
    const c = await imprint(checkin, RENEWAL_REFUSED, addDays(checkin, 7));
    assert.equal((await holdJob(addDays(checkin, -2))).held, 1);
    assert.equal((await renewJob(addDays(checkin, 2))).refused, 1);
    await registerSandboxCard(t, c.uuid, STOLEN);
    assert.equal((await renewJob(addDays(checkin, 2))).refused, 1);
    const page = await desk.get(`/control/requests/${c.uuid}`);
    const listed = (page.body.match(/<span class="status refused">/g) ?? []).length;
    assert.equal(listed, 2, 'two refused holds listed');
    // The renewal banner, then the count the recovered line would give, agree with the list.
    assert.match(page.body, /The bank refused to renew the hold/);
    const d = (await t.call({ method: 'GET', url: `/api/payment-requests/${c.uuid}/`, tenant: hotel })).json();
    assert.equal(d.guarantee_failures, listed);
  });
});
