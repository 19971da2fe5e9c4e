import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CONTROL_LANGUAGES } from '../../src/control/shell/language.ts';
import { sendDueEmails } from '../../src/mail/index.ts';
import { EVENT_TYPES } from '../../src/webhooks/index.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { eventually } from '../helpers/sandbox-checkout.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { type SmtpSink, startSmtpSink } from '../mail/smtp-sink.ts';
import { ControlClient, createUser, withoutLabels } from './control-client.ts';

/** A page's text as read: tags dropped, spaces made one. */
const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;|\u00a0|\u202f/g, ' ')
    .replace(/\s+/g, ' ');

/** The cells of one table of a page (from the heading with `id`), each row's cells as text. */
function tableRows(body: string, id: string): string[][] {
  const plain = withoutLabels(body);
  const start = plain.indexOf(`id="${id}"`);
  const table = plain.slice(start, plain.indexOf('</table>', start));
  return [...table.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)]
    .map((r) => [...(r[1] ?? '').matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) => text(c[1] ?? '').trim()))
    .filter((cells) => cells.length > 0);
}

/** The text of a page's actions card, tags dropped. */
function actionsCard(body: string): string {
  const start = body.indexOf('id="actions-h"');
  return body
    .slice(start, body.indexOf('</section>', start))
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ');
}

describe(`the front desk's pages say what they mean (${ENGINE})`, { timeout: 180_000 }, () => {
  let t: TestApp;
  let smtp: SmtpSink;
  const as = async (username: string, language = 'en') => {
    const c = new ControlClient(t);
    c.headers = { 'accept-language': language };
    return c.signedIn(username);
  };

  before(async () => {
    smtp = await startSmtpSink();
    t = await startTestApp({ env: { SMTP_URL: smtp.url } });
    await createUser(t, 'desk', t.tenant.tenantId, 'frontdesk');
    await createUser(t, 'clerk', t.tenant.tenantId, 'viewer');
    await createUser(t, 'boss', t.tenant.tenantId, 'manager');
  });
  after(async () => {
    await t?.close();
    await smtp?.close();
  });

  /** Detail page → confirmation page → POST, as a user clicks through; the page it lands on. */
  async function act(c: ControlClient, id: string, action: string, amount = '') {
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

  /** A deposit the guest paid: only a refund is left, and it is a manager's. */
  async function paidDeposit(amount: number) {
    const r = await createRequest(t, { request_type: 'DEPOSIT', amount });
    await arrangeStatus(t.db, r.uuid, 'CAPTURED', { amountCaptured: amount * 100 });
    return r;
  }

  test('a role that cannot act reads what a higher role could do, in its language', async () => {
    const paid = await paidDeposit(120);
    const desk = actionsCard((await (await as('desk')).get(`/control/requests/${paid.uuid}`)).body);
    assert.doesNotMatch(desk, /No action is possible/);
    assert.match(desk, /Your role \(Front desk\) cannot act on this request in its status\./);
    assert.match(desk, /The role Manager could refund the guest\./);
    const fr = actionsCard((await (await as('desk', 'fr')).get(`/control/requests/${paid.uuid}`)).body);
    assert.match(fr, /Le rôle Responsable pourrait rembourser le client\./);
    const de = actionsCard((await (await as('desk', 'de')).get(`/control/requests/${paid.uuid}`)).body);
    assert.match(de, /Die Rolle Leitung könnte dem Gast erstatten\./);

    // A viewer on a hold: each higher role with what it could do.
    const held = await createRequest(t, { request_type: 'IMPRINT', amount: 250 });
    await arrangeStatus(t.db, held.uuid, 'AUTHORISED_TO_VALIDATE');
    const viewer = actionsCard((await (await as('clerk')).get(`/control/requests/${held.uuid}`)).body);
    assert.match(viewer, /Your role \(Viewer\) cannot act/);
    assert.match(viewer, /The role Front desk could capture the hold or release the hold\./);

    // The manager has the button, and no sentence about others.
    const boss = (await (await as('boss')).get(`/control/requests/${paid.uuid}`)).body;
    assert.match(boss, /name="action" value="refund"/);
    assert.doesNotMatch(actionsCard(boss), /could|No action/);

    // Where the status allows nothing at all, that is still what the page says.
    const refunded = await createRequest(t, { request_type: 'DEPOSIT' });
    await arrangeStatus(t.db, refunded.uuid, 'REFUNDED');
    const none = actionsCard((await (await as('boss')).get(`/control/requests/${refunded.uuid}`)).body);
    assert.match(none, /No action is possible in this status\./);
  });

  test('history and ledger say the money each change moved: a partial refund, a release, a partial capture', async () => {
    const boss = await as('boss', 'fr');
    const paid = await paidDeposit(120);
    await act(boss, paid.uuid, 'refund', '40');
    const refunded = (await boss.get(`/control/requests/${paid.uuid}`)).body;
    // The partial refund keeps CAPTURED: its row says what went back.
    const refundRow = tableRows(refunded, 'history-h').find((r) => r[3]?.startsWith('Remboursement'));
    assert.deepEqual(refundRow?.slice(1, 4), ['Encaissée', 'Encaissée', 'Remboursement : 40,00 €']);

    const held = await createRequest(t, { request_type: 'IMPRINT', amount: 250 });
    await arrangeStatus(t.db, held.uuid, 'AUTHORISED_TO_VALIDATE');
    await act(boss, held.uuid, 'release');
    const released = (await boss.get(`/control/requests/${held.uuid}`)).body;
    const releaseRow = tableRows(released, 'history-h').at(-1);
    assert.equal(releaseRow?.[3], 'Libération : 250,00 €', 'the hold freed, not 0,00 €');
    const ledger = tableRows(released, 'ledger-h').map((r) => `${r[1]} ${r[2]}`);
    assert.deepEqual(ledger, ['Empreinte 250,00 €', 'Libération 250,00 €']);

    const noShow = await createRequest(t, { request_type: 'IMPRINT', amount: 250 });
    await arrangeStatus(t.db, noShow.uuid, 'AUTHORISED_TO_VALIDATE');
    await act(boss, noShow.uuid, 'capture', '40');
    const captured = tableRows((await boss.get(`/control/requests/${noShow.uuid}`)).body, 'history-h').at(-1);
    assert.equal(captured?.[3], 'Encaissement : 40,00 € 210,00 € libérés sur la carte');

    // The audit says each amount too: the release's is the hold it freed, a full refund's what was left.
    await act(boss, paid.uuid, 'refund');
    const audit = text(withoutLabels((await boss.get(`/control/audit?reference=${held.reference}`)).body));
    assert.match(audit, /Libération .* Montant: 250,00 €/);
    const refunds = text(withoutLabels((await boss.get(`/control/audit?reference=${paid.reference}`)).body));
    assert.match(refunds, /Remboursement .* Montant: 80,00 €.* Remboursement .* Montant: 40,00 €/);
  });

  test('a settings change names the settings it changed; the audit is in one zone, said', async () => {
    await createUser(t, 'root');
    const boss = await as('boss');
    await boss.get('/control/settings');
    const saved = await boss.post('/control/settings', {
      name: 'Hôtel du Front',
      contact_email: 'front@example.com',
      timezone: 'Europe/Paris',
      hold_days: '7',
      link_lifetime_days: '7',
    });
    assert.equal(saved.statusCode, 303);
    const audit = (await boss.get('/control/audit?action=settings_changed')).body;
    const detail = tableRows(audit, 'content')[0]?.at(-1) ?? '';
    assert.match(detail, /^Changed: .*Name.*Contact e-mail/);
    assert.doesNotMatch(detail, /Changed: \d/);
    // The hotel's manager reads the hotel's zone, said once at the foot.
    assert.match(text(audit), /Times on this page: Central European Time \(Europe\/Paris\)\./);

    // A superuser's audit mixes the hotel's rows and everyone's: one zone for all of them.
    const root = await as('root');
    const all = (await root.get('/control/audit')).body;
    const zones = new Set(tableRows(all, 'content').map((r) => /\b(UTC|CET|CEST)$/.exec(r[0] ?? '')?.[1]));
    assert.deepEqual([...zones], ['UTC']);
    assert.match(text(all), /Times on this page: UTC\./);
  });

  test('staff read words, not codes: event types, the failed guarantee, the guest language, keys, German questions', async () => {
    await createUser(t, 'root-words');
    for (const language of CONTROL_LANGUAGES) {
      const boss = await as('boss', language);
      // Every event type a webhook can subscribe to has words (the code only as a <code> detail).
      const hooks = (await boss.get('/control/webhooks')).body;
      for (const type of EVENT_TYPES) {
        const name = new RegExp(`value="${type}"> ([^<]*) <small><code>${type}</code>`).exec(hooks)?.[1] ?? '';
        assert.ok(name && !/_|payment_request|^[a-z]+$/.test(name), `${type} in ${language}: "${name}"`);
      }
    }

    // A failed guarantee whose bank answered in English: the French page says it in French.
    const failed = await createRequest(t, { request_type: 'IMPRINT', amount: 250, language: 'en' });
    await t.db.query(
      `UPDATE payment_requests SET status = 'ERROR', guarantee_failed_at = now(), guarantee_failures = 1,
         last_hold_error = 'sandbox: insufficient funds', hold_decline_reason = 'insufficient_funds',
         hold_decline_code = '51' WHERE id = $1`,
      [failed.uuid],
    );
    const fr = text((await (await as('desk', 'fr')).get(`/control/requests/${failed.uuid}`)).body);
    assert.match(fr, /La banque a refusé la garantie de cette demande le .* \(Provision insuffisante\)\. .* 51/);
    assert.doesNotMatch(fr, /insufficient|payreq job run/i);
    assert.match(fr, /un super-utilisateur peut la lancer tout de suite : Tâches planifiées/);
    assert.match(fr, /Langue du client anglais/);
    const de = text((await (await as('desk', 'de')).get(`/control/requests/${failed.uuid}`)).body);
    assert.match(de, /\(Unzureichende Deckung\)/);
    assert.match(de, /Sprache des Gastes Englisch/);
    assert.match(
      text((await (await as('desk')).get(`/control/requests/${failed.uuid}`)).body),
      /Guest language English/,
    );

    // A key in French is "en service", not "active".
    const keys = await as('boss', 'fr');
    await keys.get('/control/keys');
    await keys.post('/control/keys', { label: 'PMS' });
    assert.match((await keys.get('/control/keys')).body, /class="status active">en service</);

    // A German question starts with a capital, though the amount in words does not.
    const held = await createRequest(t, { request_type: 'IMPRINT', amount: 250 });
    await arrangeStatus(t.db, held.uuid, 'AUTHORISED_TO_VALIDATE');
    for (const [action, amount] of [
      ['capture', '40'],
      ['refund', ''],
    ] as const) {
      const id = action === 'refund' ? (await paidDeposit(80)).uuid : held.uuid;
      const asked = text(
        (
          await (
            await as(action === 'refund' ? 'boss' : 'desk', 'de')
          ).get(`/control/requests/${id}/confirm?action=${action}&amount=${amount}`)
        ).body,
      );
      assert.match(
        asked,
        action === 'refund' ? /Achtzig Euro \(80,00 €\) an den Gast/ : /Vierzig Euro \(40,00 €\) für/,
      );
    }
  });

  test('the jobs and the audit in words: a run’s counts, a sign-in’s second factor, no JSON', async () => {
    const root = await as('root-words', 'fr');
    await root.get('/control/schedules');
    const ran = await root.post('/control/schedules/expire_payment_requests/run');
    assert.equal(ran.statusCode, 303);
    const page = (await root.get('/control/schedules')).body;
    assert.match(text(page), /Effectué : l’exécution est la première des exécutions récentes ci-dessous\./);
    const run = tableRows(page, 'content')[0] ?? [];
    assert.equal(run[3], 'root-words', 'who started it');
    assert.equal(run[4], 'Effectuée');
    assert.match(run[5] ?? '', /^(rien à faire|.*(Empreintes échues|Liens expirés) : \d)/);
    const audit = (await root.get('/control/audit')).body;
    const cells = tableRows(audit, 'content').map((r) => r.at(-1) ?? '');
    assert.ok(
      cells.some((c) => /Second facteur: aucun/.test(c)),
      cells.join(' | '),
    );
    // Text that only looks like a day or a time (a search typed into an export's filter) stays text.
    await t.repos.audit.record({
      username: 'root-words',
      tenantId: null,
      ip: '10.9.0.1',
      action: 'export',
      outcome: 'ok',
      detail: { what: 'requests', filter: { q: '2026-02-31' }, at: '2026-13-01T00:00:00Z' },
    });
    const odd = await root.get('/control/audit?action=export');
    assert.equal(odd.statusCode, 200);
    assert.match(text(odd.body), /Fichier: demandes.*Recherche: 2026-02-31/);
    for (const body of [page, audit]) {
      const cellsText = tableRows(body, 'content').flat().join(' ');
      assert.doesNotMatch(cellsText, /[{}[\]"]|second_factor|\bnone\b|\bok\b/, cellsText);
    }
  });

  test('a partial capture asks with the guest, the amount held and what becomes of the rest', async () => {
    const held = await createRequest(t, {
      request_type: 'IMPRINT',
      amount: 250,
      guest_first_name: 'Jeanne',
      guest_last_name: 'Martin',
      guest_email: 'jeanne.hold@example.com',
    });
    await arrangeStatus(t.db, held.uuid, 'AUTHORISED_TO_VALIDATE');
    const desk = await as('desk', 'fr');
    const partial = text((await desk.get(`/control/requests/${held.uuid}/confirm?action=capture&amount=40`)).body);
    assert.match(
      partial,
      /Client Jeanne Martin jeanne\.hold@example\.com Bloqué sur la carte 250,00 € À encaisser maintenant 40,00 € Le reste de l’empreinte 210,00 € libérés sur la carte du client, jamais débités ; rien de plus ne pourra être encaissé sur cette demande Encaisser quarante euros \(40,00 €\) sur/,
    );
    const whole = text((await desk.get(`/control/requests/${held.uuid}/confirm?action=capture`)).body);
    assert.match(whole, /Le reste de l’empreinte aucun : toute l’empreinte est encaissée/);
    const release = text((await (await as('desk')).get(`/control/requests/${held.uuid}/confirm?action=release`)).body);
    assert.match(release, /Held on the card €250\.00 Charged to the guest €0\.00 Release the hold of/);
  });

  test('a resend says where it goes first; the address is corrected there, checked, audited, and used', async () => {
    const typo = 'jeanne.martin@exmaple.com';
    const r = await createRequest(t, { request_type: 'DEPOSIT', amount: 90, guest_email: typo });
    const desk = await as('desk');
    assert.match(
      text((await desk.get(`/control/requests/${r.uuid}`)).body),
      /The payment link goes to jeanne\.martin@exmaple\.com\./,
    );
    const confirm = (await desk.get(`/control/requests/${r.uuid}/confirm?action=resend`)).body;
    const main = text(confirm.slice(confirm.indexOf('<main')));
    assert.ok(
      main.indexOf(`The payment link goes to ${typo}.`) < main.indexOf('Send the payment link of'),
      `the address first: ${main}`,
    );
    assert.match(confirm, new RegExp(`<input id="guest-email" name="guest_email" type="email"[^>]*value="${typo}"`));
    const nonce = /name="nonce" value="([^"]+)"/.exec(confirm)?.[1] ?? '';
    const queued = async () =>
      (
        await t.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM email_outbox WHERE payment_request_id = $1 AND kind = 'payment_link'",
          [r.uuid],
        )
      ).rows[0]?.n;
    const before = await queued();

    // Not an address, or far too long: the page again with the problem beside the field; nothing changed or sent.
    for (const bad of ['jeanne.martin@', `${'x'.repeat(1001)}@example.com`, ['a@example.com', 'b@example.com']]) {
      const refused = await desk.post(`/control/requests/${r.uuid}/resend`, { nonce, guest_email: bad });
      assert.equal(refused.statusCode, 422, String(bad).slice(0, 40));
      assert.match(refused.body, /aria-invalid="true"/);
      assert.match(refused.body, /id="guest-email-problem" class="problem">Not an e-mail address the request can keep/);
    }
    const stored = await t.db.query<{ guest_email: string }>('SELECT guest_email FROM payment_requests WHERE id = $1', [
      r.uuid,
    ]);
    assert.equal(stored.rows[0]?.guest_email, typo, 'unchanged');
    assert.equal(await queued(), before, 'nothing sent');

    // The right address: kept (the API shows it), audited, and the link goes there.
    const fixed = 'jeanne.martin@example.com';
    const sent = await desk.post(`/control/requests/${r.uuid}/resend`, { nonce, guest_email: ` ${fixed} ` });
    assert.equal(sent.statusCode, 303);
    assert.match(
      (await desk.get(String(sent.headers.location))).body,
      /The guest’s e-mail is now jeanne\.martin@example\.com; the payment link e-mail is on its way there\./,
    );
    const api = (await t.call({ method: 'GET', url: `/api/payment-requests/${r.uuid}/` })).json();
    assert.equal(api.guest_email, fixed);
    const audit = await t.repos.audit.list({ paymentRequestId: r.uuid, limit: 10 });
    assert.deepEqual(
      audit.filter((a) => a.action === 'guest_email_changed').map((a) => [a.outcome, a.username, a.detail]),
      [
        ['ok', 'desk', { previous: typo, email: fixed }],
        ['refused', 'desk', { reason: 'invalid' }],
        ['refused', 'desk', { reason: 'invalid' }],
        ['refused', 'desk', { reason: 'invalid' }],
      ],
    );
    const boss = await as('boss');
    const auditPage = text(withoutLabels((await boss.get(`/control/audit?reference=${r.reference}`)).body));
    assert.match(
      auditPage,
      /Guest e-mail corrected DEP-\S+ Done \S+ (E-mail: jeanne\.martin@example\.com Previous e-mail: jeanne\.martin@exmaple\.com|Previous e-mail: jeanne\.martin@exmaple\.com E-mail: jeanne\.martin@example\.com)/,
    );
    await sendDueEmails(t.app.payreq);
    const mail = await eventually(
      async () => smtp.messages.find((m) => m.envelopeTo.includes(fixed) && m.text.includes(`/payment/${r.uuid}/`)),
      'the payment link at the corrected address',
    );
    assert.ok(mail);
    assert.ok(!smtp.messages.some((m) => m.envelopeTo.includes(typo) && m.text.includes(`/payment/${r.uuid}/`)));
    // The same form again (a double click): the address stays, nothing more is queued.
    const after = await queued();
    await desk.post(`/control/requests/${r.uuid}/resend`, { nonce, guest_email: fixed });
    assert.equal(await queued(), after);
  });
});
