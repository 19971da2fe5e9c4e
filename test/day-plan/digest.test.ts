import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type AppContext, buildContext } from '../../src/context.ts';
import { type Database, openDatabase } from '../../src/db/index.ts';
import { addDays, localDate, midnightIn } from '../../src/domain/index.ts';
import { sendDailyDigests } from '../../src/jobs/index.ts';
import { sendDueEmails } from '../../src/mail/index.ts';
import { remittancesRepository } from '../../src/payouts/index.ts';
import { ControlClient, createUser } from '../control/control-client.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { createRequest, ENGINE, startTestApp, type TenantWithKey, type TestApp } from '../helpers/test-app.ts';
import { type SmtpSink, startSmtpSink } from '../mail/smtp-sink.ts';

const HOUR = 3600_000;
// Half a day ahead of UTC: the hotel's "today" is not the server's.
const ZONE = 'Pacific/Auckland';
const FRONT_DESK = 'frontdesk@lac.example';

describe(`the daily digest, in the hotel's time zone (${ENGINE})`, { timeout: 180_000 }, () => {
  let t: TestApp;
  let smtp: SmtpSink;
  let second: Database;
  let b: AppContext;
  let hotel: TenantWithKey;
  let clock = new Date();
  /** The hotel's day before the one the digest is about: the requests below are made (and paid) on it. */
  const made = localDate(ZONE, new Date());
  const today = addDays(made, 1);
  const tomorrow = addDays(made, 2);
  /** 08:30 on the hotel's "today", past its 07:00 digest hour: 19:30 UTC the day before. */
  const morning = new Date(midnightIn(today, ZONE).getTime() + 8.5 * HOUR);
  const refs: Record<string, string> = {};

  before(async () => {
    smtp = await startSmtpSink();
    t = await startTestApp({ env: { SMTP_URL: smtp.url }, now: () => clock });
    second = ENGINE === 'postgres' ? await openDatabase({ engine: 'postgres', url: t.testDb.url }) : t.db;
    b = await buildContext({ config: t.config, db: second });
    hotel = await t.newTenant('Hôtel du Lac');
    await t.repos.tenants.update(hotel.tenantId, {
      timezone: ZONE,
      digest_email: true,
      contact_email: FRONT_DESK,
      digest_language: 'fr',
    });
    await createUser(t, 'desk-today', hotel.tenantId);

    const imprint = (ref: string, checkin: string, checkout: string) =>
      createRequest(
        t,
        { request_type: 'IMPRINT', reservation_ref: ref, reservation_data: { checkin, checkout }, amount: 200 },
        hotel,
      );
    // Arrives today, card registered: guaranteed.
    const arriving = await imprint('ARRIVES-TODAY', today, addDays(today, 2));
    await arrangeStatus(t.db, arriving.uuid, 'AUTHORISED');
    refs.today = arriving.reference;
    // Arrives tomorrow, link not used yet: not guaranteed.
    refs.tomorrow = (await imprint('ARRIVES-TOMORROW', tomorrow, addDays(tomorrow, 1))).reference;
    // Held, its hold ending in 5 hours, check-out in 3 days: about to lapse before the decision.
    const lapsing = await imprint('LAPSING', today, addDays(today, 3));
    await arrangeStatus(t.db, lapsing.uuid, 'AUTHORISED_TO_VALIDATE');
    await t.db.query('UPDATE payment_requests SET hold_expires_at = $2 WHERE id = $1', [
      lapsing.uuid,
      new Date(morning.getTime() + 5 * HOUR),
    ]);
    refs.lapsing = lapsing.reference;
    // Held too, ending in 5 hours, but on its check-out day: the decision comes first.
    const covered = await imprint('COVERED', addDays(made, -2), today);
    await arrangeStatus(t.db, covered.uuid, 'AUTHORISED_TO_VALIDATE');
    await t.db.query('UPDATE payment_requests SET hold_expires_at = $2 WHERE id = $1', [
      covered.uuid,
      new Date(morning.getTime() + 5 * HOUR),
    ]);
    refs.covered = covered.reference;
    // The daily job's hold refused: a failed guarantee (arranged as the job leaves it).
    const failed = await imprint('FAILED', today, addDays(today, 1));
    await arrangeStatus(t.db, failed.uuid, 'ERROR');
    await t.db.query(
      `UPDATE payment_requests SET guarantee_failed_at = now(), guarantee_failures = 1,
         last_hold_error = 'card blocked' WHERE id = $1`,
      [failed.uuid],
    );
    refs.failed = failed.reference;
    // A deposit paid now, on the hotel's previous day: yesterday's totals.
    const deposit = await createRequest(t, { request_type: 'DEPOSIT', amount: 120.5, reservation_ref: 'PAID' }, hotel);
    const paid = await t.app.payreq.notifications.apply('sandbox', {
      eventId: `evt-${randomUUID()}`,
      paymentRequestId: deposit.uuid,
      outcome: 'paid',
      amountCents: 12050,
      currency: 'EUR',
      transactionId: `tx-${randomUUID()}`,
    });
    assert.ok(paid);
  });
  after(async () => {
    if (second !== t.db) await second.close();
    await t.close();
    await smtp.close();
  });

  const digests = () => smtp.messages.filter((m) => m.envelopeTo.includes(FRONT_DESK));
  const run = (ctx: AppContext, now: Date) =>
    sendDailyDigests(
      {
        repos: { ...ctx.repos, remittances: remittancesRepository(ctx.db) },
        inDoubtGraceSeconds: ctx.config.inDoubtGraceSeconds,
      },
      now,
    );

  test('before its hour nothing; at it one digest of the hotel’s day, from two instances at once', async () => {
    const early = await run(t.app.payreq, new Date(morning.getTime() - 2 * HOUR));
    assert.equal(early.queued, 0);
    assert.ok(early.waiting >= 1);

    const [x, y] = await Promise.all([run(t.app.payreq, morning), run(b, morning)]);
    assert.equal(x.queued + y.queued, 1, 'one instance queued it');
    await run(t.app.payreq, new Date(morning.getTime() + HOUR));
    await Promise.all([sendDueEmails(t.app.payreq), sendDueEmails(b)]);
    const sent = digests();
    assert.equal(sent.length, 1);
    const mail = sent[0];
    assert.ok(mail);
    // The hotel's date, in French: not the UTC date of the same moment.
    const date = new Intl.DateTimeFormat('fr-FR', { dateStyle: 'long', timeZone: 'UTC' }).format(
      new Date(`${today}T00:00:00Z`),
    );
    assert.notEqual(localDate('UTC', morning), today);
    assert.equal(mail.subject, `Hôtel du Lac : votre journée du ${date}`);
    const text = mail.text;
    const section = (title: string) => {
      const start = text.indexOf(title);
      assert.ok(start >= 0, `${title} in\n${text}`);
      const end = text.indexOf('\n\n', start);
      return text.slice(start, end);
    };
    assert.match(section('Garanties en échec'), new RegExp(refs.failed as string));
    const lapsing = section('Empreintes sur le point d’expirer');
    assert.match(lapsing, new RegExp(refs.lapsing as string));
    assert.doesNotMatch(lapsing, new RegExp(refs.covered as string), 'ends on its check-out day: not lapsing');
    assert.match(section('Arrivées aujourd’hui'), new RegExp(`${refs.today} · .* · Garanti\\s: carte enregistrée`));
    // The refused guarantee says what waits, not "failed" after "not guaranteed".
    assert.match(
      section('Arrivées aujourd’hui'),
      new RegExp(`${refs.failed} · .* · Non garanti\\s: carte refusée, en attente d’une autre`),
    );
    assert.match(
      section('Arrivées demain'),
      new RegExp(`${refs.tomorrow} · .* · Non garanti\\s: lien pas encore utilisé`),
    );
    assert.match(section('Opérations incertaines'), /Aucune opération incertaine/);
    const yesterday = section('Hier');
    assert.match(yesterday, /1 acompte payé ou carte enregistrée/);
    assert.match(yesterday, /Encaissé\s: 120,50\s€/);
    assert.match(text, /heures en Pacific\/Auckland/);
    assert.match(mail.html, /<html lang="fr">/);
  });

  test('one a local day, in the language the hotel chose', async () => {
    for (const [days, language, subject] of [
      [1, 'en', 'Hôtel du Lac: your day, '],
      [2, 'de', 'Hôtel du Lac: Ihr Tag, '],
    ] as const) {
      await t.repos.tenants.update(hotel.tenantId, { digest_language: language });
      const at = new Date(morning.getTime() + days * 24 * HOUR);
      assert.equal((await run(t.app.payreq, at)).queued, 1);
      assert.equal((await run(b, new Date(at.getTime() + 3 * HOUR))).queued, 0);
      await sendDueEmails(t.app.payreq);
      const last = digests().at(-1);
      assert.ok(last?.subject.startsWith(subject), last?.subject);
      assert.match(last?.html ?? '', new RegExp(`<html lang="${language}">`));
    }
    assert.equal(digests().length, 3);
  });

  test('the Today page shows the same lists, at the back office’s clock, in the hotel’s zone', async () => {
    clock = morning;
    const c = await new ControlClient(t, '10.9.1.1').signedIn('desk-today');
    const r = await c.get('/control/today');
    assert.equal(r.statusCode, 200);
    const body = r.body;
    const cut = (id: string) => {
      const start = body.indexOf(`id="${id}"`);
      assert.ok(start >= 0, id);
      return body.slice(start, body.indexOf('</section>', start));
    };
    assert.match(cut('today-failed-h'), new RegExp(refs.failed as string));
    assert.match(cut('today-lapsing-h'), new RegExp(refs.lapsing as string));
    assert.doesNotMatch(cut('today-lapsing-h'), new RegExp(refs.covered as string));
    assert.match(cut('today-arrivals-h'), new RegExp(refs.today as string));
    assert.match(cut('today-arrivals-h'), /Not guaranteed<\/span>: card refused, waiting for another/);
    assert.match(cut('today-arrivals-h'), /Guaranteed<\/span>: card registered/);
    assert.doesNotMatch(body, /Not guaranteed<\/span> failed/);
    assert.doesNotMatch(cut('today-arrivals-h'), new RegExp(refs.tomorrow as string));
    assert.match(cut('today-tomorrow-h'), new RegExp(refs.tomorrow as string));
    assert.match(body, /<a href="\/control\/today" aria-current="page">Today<\/a>/);
    // Another hotel's day, or no hotel at all: the same 404.
    assert.equal((await c.get(`/control/today?tenant=${t.tenant.tenantId}`)).statusCode, 404);
    assert.equal((await c.get('/control/today?tenant=nonsense')).statusCode, 404);
    // A day later the hotel's tomorrow is today (a new sign-in: the session's idle time ran out).
    clock = new Date(morning.getTime() + 24 * HOUR);
    const next = await (await new ControlClient(t, '10.9.1.2').signedIn('desk-today')).get('/control/today');
    const start = next.body.indexOf('id="today-arrivals-h"');
    assert.match(next.body.slice(start, next.body.indexOf('</section>', start)), new RegExp(refs.tomorrow as string));
  });
});
