import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDeferredPayments, deferredHoldsRepository } from '../../src/holds/index.ts';
import { sendDueEmails } from '../../src/mail/index.ts';
import { registerSandboxCard } from '../helpers/fixtures.ts';
import { PRODUCTION_SECRET_KEY } from '../helpers/production-secret.ts';
import { createBody, createRequest, ENGINE, newKey, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { type SmtpSink, startSmtpSink } from './smtp-sink.ts';

const D = '2026-12-10';
const HOTEL = 'reception@hotel-du-lac.example';

describe(`the development mail viewer, /dev/mail: in development only (${ENGINE})`, { timeout: 120_000 }, () => {
  let dev: TestApp;
  let production: TestApp;
  let tested: TestApp;
  let smtp: SmtpSink;
  before(async () => {
    smtp = await startSmtpSink();
    // As `npm start` on a laptop: NODE_ENV unset is development; no SMTP_URL.
    dev = await startTestApp({ env: { NODE_ENV: 'development', LOG_LEVEL: 'silent' } });
    production = await startTestApp({
      env: {
        NODE_ENV: 'production',
        SECRET_KEY: PRODUCTION_SECRET_KEY,
        SANDBOX_IN_PRODUCTION: 'true',
        TRUST_PROXY: '127.0.0.1',
        SMTP_URL: smtp.url,
        LOG_LEVEL: 'silent',
      },
    });
    tested = await startTestApp();
  });
  after(async () => {
    await dev?.close();
    await production?.close();
    await tested?.close();
    await smtp?.close();
  });

  /** A hotel that e-mails its guests, with a contact address for its own e-mails. */
  async function mailingHotel(t: TestApp) {
    const tenant = await t.repos.tenants.create({ name: 'Hôtel du Lac', confirmationEmail: true });
    await t.repos.tenants.update(tenant.id, { contact_email: HOTEL });
    return newKey(t.repos, tenant.id);
  }

  test('development: the guest’s and the hotel’s e-mails, listed, each with its HTML and its text', async () => {
    const hotel = await mailingHotel(dev);
    const deposit = await createRequest(
      dev,
      { request_type: 'DEPOSIT', amount: 120.5, language: 'fr', guest_email: 'jeanne@example.com' },
      hotel,
    );
    // A card refused at the hold: the hotel's own e-mail, beside the guest's.
    const imprint = await createRequest(
      dev,
      { request_type: 'IMPRINT', language: 'en', guest_email: 'john@example.com', reservation_data: { checkin: D } },
      hotel,
    );
    await registerSandboxCard(dev, imprint.uuid, '4000000000000341');
    const run = await createDeferredPayments(
      { holds: deferredHoldsRepository(dev.db), runner: dev.app.payreq.runner, cardTokens: dev.app.payreq.cardTokens },
      D,
    );
    assert.equal(run.refused, 1);
    const round = await sendDueEmails(dev.app.payreq);
    assert.ok(round.logged >= 4, `logged, not sent: ${JSON.stringify(round)}`);

    const list = await dev.call({ method: 'GET', url: '/dev/mail', tenant: null });
    assert.equal(list.statusCode, 200);
    assert.match(String(list.headers['content-type']), /^text\/html/);
    assert.match(String(list.headers['content-security-policy']), /default-src 'none'/);
    const links = [...list.body.matchAll(/<a href="\/dev\/mail\/(\d+)">([^<]+)<\/a>/g)].map((m) => [m[1], m[2]]);
    const subjects = links.map(([, s]) => s);
    assert.ok(subjects.includes('Hôtel du Lac : acompte pour votre réservation'), subjects.join(' | '));
    assert.ok(subjects.includes('Hôtel du Lac: your card is registered as a guarantee'), subjects.join(' | '));
    assert.ok(
      subjects.some((s) => s === `Hôtel du Lac: Guarantee refused: ${imprint.reference}`),
      `the hotel’s e-mail: ${subjects.join(' | ')}`,
    );
    assert.match(list.body, /<td>the hotel<\/td><td>reception@hotel-du-lac\.example<\/td>/);
    assert.match(list.body, /<td>the guest<\/td><td>jeanne@example\.com<\/td>/);
    assert.match(list.body, /logged, not sent \(SMTP_URL is not set\)/);

    const [linkId] = links.find(([, s]) => s === 'Hôtel du Lac : acompte pour votre réservation') ?? [];
    const one = await dev.call({ method: 'GET', url: `/dev/mail/${linkId}`, tenant: null });
    assert.equal(one.statusCode, 200);
    assert.match(one.body, /<dd>Hôtel du Lac &lt;no-reply@localhost&gt;<\/dd>/);
    assert.match(one.body, /<dd>jeanne@example\.com \(the guest\)<\/dd>/);
    assert.match(one.body, new RegExp(`<iframe src="/dev/mail/${linkId}/html" sandbox=""`));
    const text = /<pre>([\s\S]*)<\/pre>/.exec(one.body)?.[1] ?? '';
    assert.ok(text.includes(`/payment/${deposit.uuid}/`), `the text part, with the link: ${text}`);
    assert.ok(text.includes('Bonjour'), text);
    const part = await dev.call({ method: 'GET', url: `/dev/mail/${linkId}/html`, tenant: null });
    assert.equal(part.statusCode, 200);
    assert.match(part.body, /^<!doctype html>\n<html lang="fr">/);
    assert.ok(part.body.includes(`/payment/${deposit.uuid}/`), 'the HTML part as the guest gets it');
    assert.match(String(part.headers['content-security-policy']), /sandbox/);
    assert.match(String(part.headers['content-security-policy']), /frame-ancestors 'self'/);

    // Logged again an hour later, the message shown stays the one first rendered.
    const first = await dev.db.query<{ at: string }>(
      `SELECT dev_message->>'renderedAt' AS at FROM email_outbox WHERE id = $1::bigint`,
      [linkId],
    );
    await sendDueEmails(dev.app.payreq, new Date(Date.now() + 2 * 3600_000));
    const again = await dev.db.query<{ at: string }>(
      `SELECT dev_message->>'renderedAt' AS at FROM email_outbox WHERE id = $1::bigint`,
      [linkId],
    );
    assert.equal(again.rows[0]?.at, first.rows[0]?.at);

    for (const url of ['/dev/mail/abc', '/dev/mail/999999999', '/dev/mail/0/html', '/dev/mail/1e3']) {
      assert.equal((await dev.call({ method: 'GET', url, tenant: null })).statusCode, 404, url);
    }
  });

  test('the list is newest first by number: an id of more digits above the ones of fewer', async () => {
    const hotel = await mailingHotel(dev);
    // Make the next ids cross a power of ten (…98, …99, …100): a list sorted as text would put
    // "100" below "99".
    const { rows } = await dev.db.query<{ max: string }>('SELECT coalesce(max(id), 0)::text AS max FROM email_outbox');
    const crossing = 10 ** String(Number(rows[0]?.max ?? 0) + 3).length - 2;
    await dev.db.query("SELECT setval(pg_get_serial_sequence('email_outbox', 'id'), $1)", [crossing]);
    for (const n of [1, 2, 3, 4]) {
      await createRequest(dev, { request_type: 'DEPOSIT', guest_email: `order${n}@example.com` }, hotel);
    }
    await sendDueEmails(dev.app.payreq);
    const list = await dev.call({ method: 'GET', url: '/dev/mail', tenant: null });
    const ids = [...list.body.matchAll(/<a href="\/dev\/mail\/(\d+)">/g)].map((m) => Number(m[1]));
    assert.ok(ids.includes(crossing + 1) && ids.includes(crossing + 4), `${crossing}: ${ids.join(', ')}`);
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => b - a),
      'newest (largest number) first',
    );
    const top = list.body.indexOf('order4@example.com');
    assert.ok(top > 0 && top < list.body.indexOf('order1@example.com'), 'the last one made, first');
  });

  test('production: no /dev/mail at all, and no message kept; nor in tests', async () => {
    const hotel = await mailingHotel(production);
    const https = { 'x-forwarded-proto': 'https' };
    const created = await production.call({
      method: 'POST',
      url: '/api/payment-requests/',
      tenant: hotel,
      headers: https,
      payload: createBody({ request_type: 'DEPOSIT', guest_email: 'prod.guest@example.com' }),
    });
    assert.equal(created.statusCode, 201, created.body);
    const round = await sendDueEmails(production.app.payreq);
    assert.equal(round.sent, 1, 'sent for real');
    assert.equal(smtp.messages.filter((m) => m.envelopeTo.includes('prod.guest@example.com')).length, 1);
    const kept = await production.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM email_outbox WHERE dev_message IS NOT NULL',
    );
    assert.equal(kept.rows[0]?.n, 0, 'nothing rendered is kept');
    const sentId = (await production.db.query<{ id: string }>('SELECT id::text AS id FROM email_outbox LIMIT 1'))
      .rows[0]?.id;
    for (const url of ['/dev/mail', `/dev/mail/${sentId}`, `/dev/mail/${sentId}/html`]) {
      const r = await production.call({ method: 'GET', url, tenant: null, headers: https });
      assert.equal(r.statusCode, 404, `${url}: ${r.body}`);
    }
    // The test suite's own app runs as NODE_ENV=test: not development either.
    assert.equal((await tested.call({ method: 'GET', url: '/dev/mail', tenant: null })).statusCode, 404);
  });
});
