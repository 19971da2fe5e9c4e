import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTenantLogo, updateTenantSettings } from '../../src/tenants/index.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { makePng } from '../helpers/images.ts';
import {
  auditResponses,
  createRequest,
  ENGINE,
  startTestApp,
  type TenantWithKey,
  type TestApp,
} from '../helpers/test-app.ts';
import { guestCall, plainSpaces, stubCheckout, visibleText } from './guest-helpers.ts';

const DISPLAY = {
  address: '12 rue du Lac\n74000 Annecy',
  phone: '+33 4 50 00 00 00',
  contact_email: 'desk@lac.example',
  terms_url: 'https://lac.example/conditions?lang=fr&x=1',
  accent_color: '#1f4e79',
};

const text = (body: string) => plainSpaces(visibleText(body));

describe(`the hotel on the guest pages: contact, terms, accent, logo, stay, receipt (${ENGINE})`, {
  timeout: 300_000,
}, () => {
  let t: TestApp;
  let plain: TenantWithKey;
  let logoUrl: string;
  const logo = makePng(40, 20);
  const checkout = stubCheckout();

  before(async () => {
    t = await startTestApp({ provider: checkout.provider, env: { PUBLIC_BASE_URL: 'https://pay.hotel.test' } });
    await updateTenantSettings(t.repos, t.tenant.tenantId, DISPLAY);
    const { after: tenant } = await setTenantLogo(t.repos, t.tenant.tenantId, logo);
    logoUrl = `/logo/${tenant.id}/${tenant.logo_hash}`;
    // A hotel that set nothing: its pages leave every optional part out.
    plain = await t.newTenant('Hôtel Simple');
  });
  after(async () => {
    auditResponses(t);
    await t.close();
  });

  test('the payment page shows the hotel (logo, address, phone, e-mail, terms), the stay and the booking reference', async () => {
    const c = await createRequest(t, { language: 'en', request_type: 'DEPOSIT', amount: 80 });
    const r = await guestCall(t, c.payment_link);
    assert.equal(r.statusCode, 200);
    const page = text(r.body);
    for (const s of [
      'Booking reference RES-1001',
      'Check-in 24 December 2026',
      'Check-out 27 December 2026',
      'Room type Double',
      `Reference ${c.reference}`,
      'Contact the hotel',
      '12 rue du Lac',
      '74000 Annecy',
      'Phone: +33 4 50 00 00 00',
      'E-mail: desk@lac.example',
      'Terms and cancellation policy',
    ]) {
      assert.ok(page.includes(s), `"${s}" in: ${page}`);
    }
    assert.match(r.body, /<a href="tel:\+33450000000">/);
    assert.match(r.body, /<a href="mailto:desk@lac\.example">/);
    // Escaped as an attribute: the & of the query string stays an &amp; in the HTML.
    assert.match(r.body, /<a href="https:\/\/lac\.example\/conditions\?lang=fr&amp;x=1" rel="noopener noreferrer">/);
    assert.ok(r.body.includes(`<img class="logo" src="${logoUrl}" alt="">`));
    assert.match(r.body, /<link rel="stylesheet" href="\/payment\/assets\/accent\/1f4e79\.css">/);
    // Still no inline style: the CSP allows our own stylesheets only.
    assert.doesNotMatch(r.body, /style=|<style/);
    assert.match(String(r.headers['content-security-policy']), /style-src 'self'; img-src 'self' data:/);
  });

  test('the dates and the room follow the language of the request', async () => {
    const fr = text((await guestCall(t, (await createRequest(t, { language: 'fr' })).payment_link)).body);
    assert.ok(fr.includes('Arrivée 24 décembre 2026') && fr.includes('Départ 27 décembre 2026'), fr);
    assert.ok(fr.includes('Type de chambre Double') && fr.includes('Réservation RES-1001'), fr);
    assert.ok(fr.includes('Conditions générales et d’annulation') && fr.includes('Contacter l’établissement'), fr);
    const de = text((await guestCall(t, (await createRequest(t, { language: 'de' })).payment_link)).body);
    assert.ok(de.includes('Anreise 24. Dezember 2026') && de.includes('Zimmerkategorie Double'), de);
    assert.ok(de.includes('Buchungsnummer RES-1001') && de.includes('Telefon: +33 4 50 00 00 00'), de);
  });

  test('a hotel that set nothing, a stay the PMS did not describe: those parts are simply not there', async () => {
    const c = await createRequest(t, { language: 'en', reservation_data: {} }, plain);
    const r = await guestCall(t, c.payment_link);
    const page = text(r.body);
    assert.ok(page.includes('Hôtel Simple') && page.includes('Booking reference RES-1001'));
    for (const s of ['Check-in', 'Check-out', 'Room type', 'Contact the hotel', 'Terms', 'Phone', 'E-mail']) {
      assert.ok(!page.includes(s), `"${s}" must not be shown`);
    }
    assert.doesNotMatch(r.body, /<img|<footer|\/accent\//);
  });

  test('the accent stylesheet sets the colour of its name, is cached for good, and nothing else is served there', async () => {
    const r = await guestCall(t, '/payment/assets/accent/1f4e79.css');
    assert.equal(r.statusCode, 200);
    assert.equal(r.body, ':root { --accent: #1f4e79; }\n');
    assert.match(String(r.headers['content-type']), /^text\/css/);
    assert.equal(r.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(r.headers['x-content-type-options'], 'nosniff');
    for (const bad of ['1F4E79.css', '1f4e7.css', 'red.css', '1f4e79.css%3Bbody%7B%7D', '..%2Fguest.css']) {
      assert.equal((await guestCall(t, `/payment/assets/accent/${bad}`)).statusCode, 404, bad);
    }
  });

  test('the logo: its bytes, its type, nosniff, a year of cache, a 304 on revalidation', async () => {
    const r = await guestCall(t, logoUrl);
    assert.equal(r.statusCode, 200);
    assert.equal(r.headers['content-type'], 'image/png');
    assert.deepEqual(r.rawPayload, logo);
    assert.equal(r.headers['x-content-type-options'], 'nosniff');
    assert.equal(r.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.match(String(r.headers['content-security-policy']), /default-src 'none'; sandbox/);
    const etag = String(r.headers.etag);
    const again = await guestCall(t, logoUrl, { headers: { 'if-none-match': etag } });
    assert.equal(again.statusCode, 304);
    assert.equal(again.rawPayload.length, 0);
  });

  test("a stale hash, another tenant's id, a malformed id: 404, never another tenant's logo, never a 500", async () => {
    const hash = logoUrl.split('/')[3] ?? '';
    const other = await setTenantLogo(t.repos, plain.tenantId, makePng(8, 8, [0, 0, 0], [0, 0, 0]));
    const urls = [
      `/logo/${t.tenant.tenantId}/${'0'.repeat(64)}`,
      // The other hotel's id with this hotel's hash, and the reverse: each logo only under its own tenant.
      `/logo/${plain.tenantId}/${hash}`,
      `/logo/${t.tenant.tenantId}/${other.after.logo_hash}`,
      `/logo/not-a-uuid/${hash}`,
      `/logo/${t.tenant.tenantId}/${hash.toUpperCase()}x`,
      `/logo/${t.tenant.tenantId}/`,
      '/logo/',
    ];
    for (const url of urls) {
      const r = await guestCall(t, url);
      assert.equal(r.statusCode, 404, url);
      assert.equal(r.headers['x-content-type-options'], 'nosniff');
      assert.equal(r.headers['cache-control'], 'no-store');
    }
    assert.equal((await guestCall(t, `/logo/${plain.tenantId}/${other.after.logo_hash}`)).statusCode, 200);
    // A new logo is a new URL; the old one is gone.
    await setTenantLogo(t.repos, plain.tenantId, null);
    assert.equal((await guestCall(t, `/logo/${plain.tenantId}/${other.after.logo_hash}`)).statusCode, 404);
  });

  test('a paid deposit: "Amount paid", the masked card, the date of payment on the hotel clock, the references', async () => {
    const c = await createRequest(t, { language: 'en', request_type: 'DEPOSIT', amount: 80 });
    await arrangeStatus(t.db, c.uuid, 'CAPTURED', { amountCaptured: 8000 });
    await t.db.query(
      `UPDATE payment_requests SET masked_pan = '497010XXXXXX0055', card_expiry_month = 3, card_expiry_year = 2031 WHERE id = $1`,
      [c.uuid],
    );
    await t.db.query(
      `INSERT INTO status_history (payment_request_id, tenant_id, from_status, to_status, source, created_at)
       SELECT id, tenant_id, 'PENDING', 'CAPTURED', 'ipn', '2026-11-02T09:30:00Z' FROM payment_requests WHERE id = $1`,
      [c.uuid],
    );
    const page = text((await guestCall(t, `${c.payment_link}result/`)).body);
    for (const s of [
      'Payment received',
      'Amount paid €80.00',
      'Card 497010XXXXXX0055 (expires 03/2031)',
      // 09:30 UTC is 10:30 in Europe/Paris, the hotel's time zone.
      'Date of payment 2 November 2026 at 10:30',
      `Reference ${c.reference}`,
      'Booking reference RES-1001',
    ]) {
      assert.ok(page.includes(s), `"${s}" in: ${page}`);
    }
    assert.ok(!page.includes('Amount to pay'), page);
  });

  test('a registered imprint: "Card registered as a guarantee", what may be held, from when, for how long', async () => {
    const c = await createRequest(t, { language: 'fr', request_type: 'IMPRINT', amount: 150 });
    await arrangeStatus(t.db, c.uuid, 'AUTHORISED');
    await t.db.query(`UPDATE payment_requests SET masked_pan = '424242XXXXXX4242' WHERE id = $1`, [c.uuid]);
    const page = text((await guestCall(t, `${c.payment_link}result/`)).body);
    for (const s of [
      'Carte enregistrée en garantie',
      'Carte 424242XXXXXX4242',
      'Montant maximal garanti : 150,00 €',
      // The hold job places the hold 2 days before check-in (24 December).
      // 6 hotel days, told as 5: the shortest network (Visa, 4 days 18 hours) decides before the card is known.
      'À partir du 22 décembre 2026, Hôtel des Tests pourra bloquer au plus ce montant sur votre carte, pendant 5 jours au maximum',
      'qu’en cas de non-présentation',
      // Check-out on the 27th, a hold of 5 days at most from the 22nd: renewed until check-out.
      'Votre séjour dépassant cette durée, le blocage est renouvelé avant sa fin, du même montant, jusqu’au 27 décembre 2026',
    ]) {
      assert.ok(page.includes(s), `"${s}" in: ${page}`);
    }
    // One night: one hold covers it, nothing is said of renewals.
    const short = await createRequest(t, {
      language: 'fr',
      request_type: 'IMPRINT',
      amount: 150,
      reservation_data: { checkin: '2026-12-24', checkout: '2026-12-25' },
    });
    await arrangeStatus(t.db, short.uuid, 'AUTHORISED');
    const once = text((await guestCall(t, `${short.payment_link}result/`)).body);
    assert.ok(once.includes('pendant 5 jours au maximum'), once);
    assert.ok(!once.includes('renouvelé'), once);
  });

  test('refused: the request cannot be paid again, the hotel is who to call, with its phone and e-mail', async () => {
    const c = await createRequest(t, { language: 'de' });
    await arrangeStatus(t.db, c.uuid, 'REFUSED');
    const r = await guestCall(t, `${c.payment_link}result/`);
    const page = text(r.body);
    assert.ok(page.includes('Zahlung abgelehnt') && page.includes('kann online nicht erneut bezahlt werden'), page);
    const card = r.body.slice(r.body.indexOf('<main>'), r.body.indexOf('</main>'));
    assert.match(card, /Telefon: <a href="tel:\+33450000000">\+33 4 50 00 00 00<\/a>/);
    assert.match(card, /E-Mail: <a href="mailto:desk@lac\.example">/);
    assert.doesNotMatch(card, /<form|class="button"/, 'no retry');
    // A hotel with no contact set: the sentence stays, no empty contact line.
    const p = await createRequest(t, { language: 'en' }, plain);
    await arrangeStatus(t.db, p.uuid, 'REFUSED');
    const bare = await guestCall(t, `${p.payment_link}result/`);
    assert.ok(text(bare.body).includes('cannot be paid again online'));
    assert.doesNotMatch(bare.body, /class="contact"/);
  });

  test('TEST MODE on the form and every result page with the sandbox; with a Lyra account, only in its TEST mode', async () => {
    const c = await createRequest(t, { language: 'en' });
    const form = await guestCall(t, c.payment_link);
    assert.ok(text(form.body).includes('TEST MODE'));
    const pages = async () => [
      text((await guestCall(t, c.payment_link)).body),
      text((await guestCall(t, `${c.payment_link}result/`)).body),
    ];
    await arrangeStatus(t.db, c.uuid, 'REFUSED');
    for (const page of await pages()) assert.ok(page.includes('TEST MODE'), page);

    // The mode is read from the account row; the outcome pages never call the provider.
    await t.db.query(
      `INSERT INTO provider_accounts (tenant_id, provider, shop_id, api_url, mode, secrets_sealed)
       VALUES ($1, 'lyra', '12345678', 'https://api.lyra.example/', 'PRODUCTION', 'sealed')`,
      [t.tenant.tenantId],
    );
    for (const page of await pages()) assert.ok(!page.includes('TEST MODE'), page);
    await t.db.query(`UPDATE provider_accounts SET mode = 'TEST' WHERE tenant_id = $1`, [t.tenant.tenantId]);
    for (const page of await pages()) assert.ok(page.includes('TEST MODE'), page);
    await t.db.query('DELETE FROM provider_accounts WHERE tenant_id = $1', [t.tenant.tenantId]);
  });

  test('the unknown-link page speaks French, English and German', async () => {
    const r = await guestCall(t, '/payment/00000000-0000-4000-8000-000000000000/');
    assert.equal(r.statusCode, 404);
    const page = text(r.body);
    for (const s of ['Lien de paiement introuvable', 'Payment link not found', 'Zahlungslink nicht gefunden']) {
      assert.ok(page.includes(s), s);
    }
    assert.match(r.body, /<section lang="de" class="card">/);
  });
});
