import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Language, Status } from '../../src/domain/index.ts';
import { MESSAGES } from '../../src/guest/messages.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { auditResponses, createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';
import {
  guestCall,
  plainSpaces,
  STUB_FORM_ACTION,
  setLinkExpired,
  stubCheckout,
  visibleText,
} from './guest-helpers.ts';

/** Words that must appear on the page in each language, and must not on the others'. */
const KEY_LABELS: Record<Language, { imprint: string[]; deposit: string[]; common: string[] }> = {
  fr: {
    imprint: ['Garantie de votre réservation', 'Enregistrer ma carte', 'Aucun montant n’est débité maintenant'],
    deposit: ['Acompte de votre réservation', 'sera débité immédiatement'],
    common: [
      'Numéro de carte',
      'Date d’expiration',
      'Mois (MM)',
      'Année (AAAA)',
      'Cryptogramme visuel',
      'Bonjour',
      'MODE TEST',
    ],
  },
  en: {
    imprint: ['Guarantee for your booking', 'Register my card', 'No money is taken now'],
    deposit: ['Deposit for your booking', 'will be charged to your card now'],
    common: ['Card number', 'Expiry date', 'Month (MM)', 'Year (YYYY)', 'Security code', 'Hello', 'TEST MODE'],
  },
  de: {
    imprint: ['Garantie Ihrer Reservierung', 'Karte hinterlegen', 'Es wird jetzt nichts abgebucht'],
    deposit: ['Anzahlung für Ihre Reservierung', 'wird sofort von Ihrer Karte abgebucht'],
    common: ['Kartennummer', 'Ablaufdatum', 'Monat (MM)', 'Jahr (JJJJ)', 'Prüfnummer', 'Guten Tag', 'TESTMODUS'],
  },
};

const AMOUNT_150: Record<Language, string> = { fr: '150,00 €', en: '€150.00', de: '150,00 €' };
const LANGUAGES: Language[] = ['fr', 'en', 'de'];
const CARD_FIELDS = ['card_number', 'exp_month', 'exp_year', 'cvv'];

function hasCardForm(body: string): boolean {
  return CARD_FIELDS.some((f) => body.includes(`name="${f}"`)) || body.includes('<form');
}

describe(`guest payment page /payment/<uuid>/ (${ENGINE})`, () => {
  let t: TestApp;
  const checkout = stubCheckout();
  before(async () => {
    t = await startTestApp({ provider: checkout.provider, env: { PUBLIC_BASE_URL: 'https://pay.hotel.test' } });
  });
  after(async () => {
    auditResponses(t, [503]);
    await t.close();
  });

  for (const language of LANGUAGES) {
    for (const requestType of ['IMPRINT', 'DEPOSIT'] as const) {
      test(`${requestType} in ${language}: translated, <html lang>, hotel, guest, amount and what will happen`, async () => {
        const c = await createRequest(t, { language, request_type: requestType, amount: 150 });
        const r = await guestCall(t, c.payment_link);
        assert.equal(r.statusCode, 200, r.body);
        assert.match(String(r.headers['content-type']), /^text\/html; charset=utf-8/);
        assert.match(r.body, new RegExp(`<html lang="${language}">`));
        const text = plainSpaces(visibleText(r.body));
        assert.ok(text.includes('Hôtel des Tests'), 'hotel name');
        assert.ok(text.includes('Jeanne Martin'), 'guest name');
        assert.ok(text.includes(c.reference), 'reference');
        assert.ok(text.includes(AMOUNT_150[language]), `amount formatted as ${AMOUNT_150[language]}: ${text}`);
        const own = KEY_LABELS[language];
        for (const s of [...own.common, ...(requestType === 'IMPRINT' ? own.imprint : own.deposit)]) {
          assert.ok(text.includes(s), `"${s}" on the ${language} page`);
        }
        const otherType = requestType === 'IMPRINT' ? own.deposit : own.imprint;
        for (const s of otherType) assert.ok(!text.includes(s), `"${s}" must not be on a ${requestType} page`);
        for (const other of LANGUAGES.filter((l) => l !== language)) {
          const foreign = KEY_LABELS[other];
          for (const s of [...foreign.common, ...foreign.imprint, ...foreign.deposit]) {
            // "Garantie" is French and German alike; only whole labels are compared.
            assert.ok(!text.includes(s), `"${s}" (${other}) must not be on the ${language} page`);
          }
        }
        if (requestType === 'IMPRINT') {
          // The ceiling of what may be held is stated with the no-show.
          assert.ok(text.includes(AMOUNT_150[language]));
          assert.match(text, /non-présentation|no-show|Nichtanreise/);
        }
      });
    }
  }

  test('German amounts in CHF and a DEPOSIT button naming the amount; English in USD', async () => {
    const de = await createRequest(t, { language: 'de', request_type: 'DEPOSIT', amount: 1234.5, currency: 'CHF' });
    const text = plainSpaces(visibleText((await guestCall(t, de.payment_link)).body));
    assert.ok(text.includes('1.234,50 CHF'), text);
    assert.ok(text.includes('1.234,50 CHF bezahlen'), text);
    const en = await createRequest(t, { language: 'en', request_type: 'DEPOSIT', amount: 99.9, currency: 'USD' });
    const enText = plainSpaces(visibleText((await guestCall(t, en.payment_link)).body));
    assert.ok(enText.includes('Pay US$99.90') || enText.includes('Pay $99.90'), enText);
  });

  test('an IMPRINT of 0 explains the guarantee without a ceiling', async () => {
    const c = await createRequest(t, { language: 'en', amount: 0 });
    const text = plainSpaces(visibleText((await guestCall(t, c.payment_link)).body));
    assert.ok(text.includes('No money is taken now. Your card will be registered as a guarantee for your booking.'));
    assert.ok(!text.includes('up to'), text);
  });

  test('the card form: provider action, hidden fields, labelled inputs with autocomplete and inputmode', async () => {
    const c = await createRequest(t);
    const r = await guestCall(t, c.payment_link);
    assert.match(r.body, new RegExp(`<form method="post" action="${STUB_FORM_ACTION}"`));
    assert.match(r.body, new RegExp(`<input type="hidden" name="order_id" value="${c.uuid}">`));
    const autocomplete: Record<string, string> = {
      card_number: 'cc-number',
      exp_month: 'cc-exp-month',
      exp_year: 'cc-exp-year',
      cvv: 'cc-csc',
    };
    for (const field of CARD_FIELDS) {
      const input = r.body.match(new RegExp(`<input id="${field}" name="${field}"[^>]*>`))?.[0];
      assert.ok(input, `input ${field}`);
      assert.match(input, new RegExp(`autocomplete="${autocomplete[field]}"`));
      assert.match(input, /inputmode="numeric"/);
      assert.match(input, /required/);
      assert.match(r.body, new RegExp(`<label for="${field}">[^<]+</label>`), `label for ${field}`);
    }
    assert.doesNotMatch(r.body, /<script/i, 'the page ships no script');
    assert.equal((r.body.match(/<h1>/g) ?? []).length, 1, 'one h1');
  });

  test('the provider is asked with the request and the public URLs for the return and the notification', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 80, currency: 'CHF', language: 'de' });
    await guestCall(t, c.payment_link);
    const input = checkout.calls.find((i) => i.paymentRequestId === c.uuid);
    assert.deepEqual(input, {
      paymentRequestId: c.uuid,
      reference: c.reference,
      requestType: 'DEPOSIT',
      amountCents: 8000,
      currency: 'CHF',
      language: 'de',
      guestEmail: 'jeanne.martin@example.com',
      merchantName: 'Hôtel des Tests',
      returnUrl: `https://pay.hotel.test/payment/${c.uuid}/result/`,
      notifyUrl: 'https://pay.hotel.test/ipn/sandbox/',
    });
  });

  test('first open moves NOT_INITIATED to PENDING with a guest history row; a second open adds nothing', async () => {
    const c = await createRequest(t);
    await guestCall(t, c.payment_link);
    const d = (await t.call({ method: 'GET', url: `/api/payment-requests/${c.uuid}/` })).json();
    assert.equal(d.status, 'PENDING');
    await guestCall(t, c.payment_link);
    const h = await t.repos.paymentRequests.history(c.uuid);
    assert.deepEqual(
      h.map((row) => [row.from_status, row.to_status, row.source]),
      [
        [null, 'NOT_INITIATED', 'api'],
        ['NOT_INITIATED', 'PENDING', 'guest'],
      ],
    );
  });

  test('guest-supplied text is escaped: a name with <script>, quotes in a hidden field', async () => {
    const c = await createRequest(t, {
      guest_first_name: '<script>alert("x")</script>',
      guest_last_name: "O'Brien & Co",
    });
    for (const url of [c.payment_link, `${c.payment_link}result/`]) {
      const r = await guestCall(t, url);
      assert.doesNotMatch(r.body, /<script/i, url);
      assert.ok(r.body.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'), url);
      assert.ok(r.body.includes('O&#39;Brien &amp; Co'), url);
    }
    const r = await guestCall(t, c.payment_link);
    assert.ok(r.body.includes('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"'));
  });

  const TERMINAL: Status[] = ['CAPTURED', 'REFUSED', 'CANCELLED', 'EXPIRED', 'REFUNDED'];
  const OUTCOME_TITLE: Record<string, string> = {
    CAPTURED: 'Montant débité',
    REFUSED: 'Paiement refusé',
    CANCELLED: 'Demande annulée',
    EXPIRED: 'Lien expiré',
    REFUNDED: 'Paiement remboursé',
    AUTHORISED: 'Carte enregistrée',
    AUTHORISED_TO_VALIDATE: 'Carte enregistrée',
  };
  for (const status of [...TERMINAL, 'AUTHORISED', 'AUTHORISED_TO_VALIDATE'] as Status[]) {
    test(`${status}: the outcome in the request's language, never a card form, the status unchanged`, async () => {
      const c = await createRequest(t);
      await arrangeStatus(t.db, c.uuid, status, status === 'CAPTURED' ? { amountCaptured: 4000 } : {});
      const before = checkout.calls.length;
      const r = await guestCall(t, c.payment_link);
      assert.equal(r.statusCode, 200);
      assert.ok(!hasCardForm(r.body), r.body);
      const text = plainSpaces(visibleText(r.body));
      assert.ok(text.includes(OUTCOME_TITLE[status] as string), text);
      if (status === 'CAPTURED') assert.ok(text.includes('40,00 €'), 'the amount actually captured');
      assert.equal(checkout.calls.length, before, 'the provider is not asked');
      const d = (await t.call({ method: 'GET', url: `/api/payment-requests/${c.uuid}/` })).json();
      assert.equal(d.status, status);
    });
  }

  test('a captured DEPOSIT says thank you in English', async () => {
    const c = await createRequest(t, { language: 'en', request_type: 'DEPOSIT', amount: 150 });
    await arrangeStatus(t.db, c.uuid, 'CAPTURED', { amountCaptured: 15000 });
    const text = plainSpaces(visibleText((await guestCall(t, c.payment_link)).body));
    assert.ok(text.includes('Payment received'), text);
    assert.ok(text.includes('Your payment of €150.00 has been received'), text);
  });

  for (const status of ['NOT_INITIATED', 'PENDING', 'ERROR'] as Status[]) {
    test(`an expired link (${status}) shows that it expired, in German, no form, no move to PENDING`, async () => {
      const c = await createRequest(t, { language: 'de' });
      if (status !== 'NOT_INITIATED') await arrangeStatus(t.db, c.uuid, status);
      await setLinkExpired(t, c.uuid);
      const r = await guestCall(t, c.payment_link);
      assert.ok(!hasCardForm(r.body));
      assert.match(r.body, /<html lang="de">/);
      assert.ok(visibleText(r.body).includes('Link abgelaufen'));
      const d = (await t.call({ method: 'GET', url: `/api/payment-requests/${c.uuid}/` })).json();
      assert.equal(d.status, status);
    });
  }

  test('ERROR: the form again, with a word about the failed attempt', async () => {
    const c = await createRequest(t, { language: 'en' });
    await arrangeStatus(t.db, c.uuid, 'ERROR');
    const r = await guestCall(t, c.payment_link);
    assert.equal(r.statusCode, 200);
    assert.ok(hasCardForm(r.body));
    assert.ok(visibleText(r.body).includes('Your previous attempt failed because of a technical error.'));
    // Why first, then what giving a card does (said in the future: no card is registered yet).
    const text = visibleText(r.body);
    const why = text.indexOf('Your previous attempt failed');
    const what = text.indexOf('Your card will be registered as a guarantee');
    assert.ok(why >= 0 && what > why, `the failed attempt is said before what will happen: ${text}`);
    assert.ok(r.body.indexOf('class="notice"') < r.body.indexOf('class="explain"'), 'the red box above the blue');
    const fresh = await createRequest(t, { language: 'en' });
    assert.ok(!visibleText((await guestCall(t, fresh.payment_link)).body).includes('previous attempt'));
  });

  test('unknown, non-UUID, deleted: a 404 page in French and English, no form', async () => {
    const deleted = await createRequest(t, { language: 'de' });
    const del = await t.call({ method: 'DELETE', url: `/api/payment-requests/${deleted.uuid}/` });
    assert.equal(del.statusCode, 200, del.body);
    for (const url of [
      '/payment/00000000-0000-4000-8000-000000000000/',
      '/payment/not-a-uuid/',
      "/payment/'%3Cscript%3E/",
      `/payment/${deleted.uuid}/`,
      `/payment/${deleted.uuid}/result/`,
      '/payment/',
      '/payment/a/b/c/',
    ]) {
      const r = await guestCall(t, url);
      assert.equal(r.statusCode, 404, url);
      assert.match(String(r.headers['content-type']), /^text\/html/, url);
      assert.match(r.body, /<html lang="fr">/);
      assert.match(r.body, /<section lang="en"/);
      assert.match(r.body, /<section lang="de"/);
      const text = visibleText(r.body);
      assert.ok(text.includes('Lien de paiement introuvable') && text.includes('Payment link not found'), url);
      assert.ok(text.includes(MESSAGES.de.notFound.title), url);
      assert.ok(!hasCardForm(r.body), url);
      assert.doesNotMatch(r.body, /<script/i);
    }
  });

  test('provider unavailable: a 503 page in the language with a retry link, never a 500; the open still counts', async () => {
    const c = await createRequest(t, { language: 'de' });
    checkout.failWith('technical');
    try {
      const r = await guestCall(t, c.payment_link);
      assert.equal(r.statusCode, 503);
      assert.equal(r.headers['retry-after'], '60');
      assert.match(r.body, /<html lang="de">/);
      const text = visibleText(r.body);
      assert.ok(text.includes('Zahlung vorübergehend nicht möglich'), text);
      assert.ok(r.body.includes(`href="/payment/${c.uuid}/"`), 'retry link');
      assert.ok(!hasCardForm(r.body));
      const d = (await t.call({ method: 'GET', url: `/api/payment-requests/${c.uuid}/` })).json();
      assert.equal(d.status, 'PENDING');
    } finally {
      checkout.failWith(undefined);
    }
  });

  test('an uppercase uuid in the link finds the request', async () => {
    const c = await createRequest(t);
    const r = await guestCall(t, `/payment/${c.uuid.toUpperCase()}/`);
    assert.equal(r.statusCode, 200);
    assert.ok(hasCardForm(r.body));
  });
});
