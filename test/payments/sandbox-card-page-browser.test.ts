// test-engines: pglite. What a browser sees (pages, accessibility, the CSP, forms without
// JavaScript) does not depend on the engine; the same flows' HTTP answers and stored rows are
// tested on both engines by the files beside this one. (scripts/test-engines.mjs reads this line.)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page, Response } from 'playwright-core';
import type { Language } from '../../src/domain/index.ts';
import { axeViolations, guestContext, launchChromium, skipWithoutChromium } from '../helpers/browser.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { detail, signCheckoutForm } from '../helpers/sandbox-checkout.ts';
import { createRequest, ENGINE } from '../helpers/test-app.ts';

const FUTURE_YEAR = String(new Date().getUTCFullYear() + 2);

const WORDING: Record<Language, { banner: RegExp; error: RegExp; paid: string }> = {
  fr: { banner: /MODE TEST/, error: /Le numéro de carte n’est pas valide/, paid: 'Paiement reçu' },
  en: { banner: /TEST MODE/, error: /The card number is not valid/, paid: 'Payment received' },
  de: { banner: /TESTMODUS/, error: /Die Kartennummer ist ungültig/, paid: 'Zahlung erhalten' },
};

/** Types a card into the form on screen and posts it to the sandbox: its answer. */
async function postCard(page: Page, number: string): Promise<Response> {
  await page.fill('#card_number', number);
  await page.fill('#exp_month', '11');
  await page.fill('#exp_year', FUTURE_YEAR);
  await page.fill('#cvv', '123');
  const [answer] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/sandbox/pay')),
    page.click('button[type="submit"]'),
  ]);
  return answer;
}

/**
 * The guest's path through a typing mistake, in a real browser: the payment link, the card
 * form posted to the sandbox, the sandbox's own page with the mistake, then the corrected card.
 */
describe(`the sandbox's card page after a mistake, in a real browser (${ENGINE})`, {
  skip: skipWithoutChromium,
}, () => {
  let t: ListeningApp;
  let browser: Browser;
  before(async () => {
    // TRUST_PROXY: each context names its own client address, so the guest pages' rate limit is per test.
    t = await startListeningApp({ env: { TRUST_PROXY: 'true' } });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const language of ['fr', 'en', 'de'] as const) {
    test(`${language}: the error beside the card number, the hotel named, no axe-core violation; then the corrected card pays`, async () => {
      const { context, page, cspErrors } = await guestContext(browser, t.baseUrl);
      try {
        const words = WORDING[language];
        const c = await createRequest(t, { language, request_type: 'DEPOSIT', amount: 64 });
        await page.goto(c.payment_link);
        assert.equal((await postCard(page, '4242424242424241')).status(), 422);
        await page.locator('#card-error').waitFor();

        assert.equal(await page.getAttribute('html', 'lang'), language);
        const text = String(await page.locator('body').textContent());
        assert.match(text, words.banner);
        assert.match(text, /Hôtel des Tests/, 'the hotel is named');
        assert.match(String(await page.locator('#card-error').textContent()), words.error);
        assert.equal(await page.getAttribute('#card_number', 'aria-describedby'), 'card-error');
        assert.equal(await page.getAttribute('#card_number', 'aria-invalid'), 'true');
        assert.equal(await page.inputValue('#card_number'), '', 'the card number is typed again');
        assert.equal(await page.inputValue('#cvv'), '', 'the CVV is typed again');
        assert.equal(await page.inputValue('#exp_month'), '11', 'the expiry is kept');
        assert.equal(await page.inputValue('#exp_year'), FUTURE_YEAR);
        const violations = await axeViolations(page);
        assert.deepEqual(violations, [], JSON.stringify(violations, null, 2));

        await page.fill('#card_number', '4242424242424242');
        await page.fill('#cvv', '123');
        await Promise.all([page.waitForURL(/\/result\/$/), page.click('button[type="submit"]')]);
        await page.locator('h1', { hasText: words.paid }).waitFor({ timeout: 15_000 });
        assert.equal((await detail(t, c.uuid)).status, 'CAPTURED');
        assert.deepEqual(cspErrors, [], 'nothing was blocked by a CSP');
      } finally {
        await context.close();
      }
    });
  }

  test('an expired form and an altered one: pages that say so, in the language, with no axe-core violation', async () => {
    const { context, page } = await guestContext(browser, t.baseUrl);
    try {
      const cases = [
        { language: 'de', expired: true, status: 410, heading: /abgelaufen/ },
        { language: 'fr', expired: false, status: 400, heading: /invalide/ },
      ];
      for (const k of cases) {
        const c = await createRequest(t, { language: k.language, request_type: 'DEPOSIT', amount: 12 });
        await page.goto(c.payment_link);
        const hidden = await page.$$eval('form input[type="hidden"]', (inputs) =>
          Object.fromEntries(inputs.map((i) => [(i as HTMLInputElement).name, (i as HTMLInputElement).value])),
        );
        // Expired: a form signed as the sandbox would, 30 minutes and a second ago. Altered: the amount.
        const changed: Record<string, string> = k.expired
          ? { expires_at: new Date(Date.now() - 1000).toISOString() }
          : { amount: '1', signature: hidden.signature ?? '' };
        const fields: Record<string, string> = { ...hidden, ...changed };
        if (k.expired) fields.signature = signCheckoutForm(t.app.payreq.secretKey, fields);
        await page.$$eval(
          'form input[type="hidden"]',
          (inputs, values) => {
            for (const i of inputs as HTMLInputElement[]) i.value = values[i.name] ?? i.value;
          },
          fields,
        );
        assert.equal((await postCard(page, '4242424242424242')).status(), k.status);
        await page.locator('h1').waitFor();
        assert.equal(await page.getAttribute('html', 'lang'), k.language);
        assert.match(String(await page.locator('h1').textContent()), k.heading);
        const violations = await axeViolations(page);
        assert.deepEqual(violations, [], `${k.status}: ${JSON.stringify(violations, null, 2)}`);
        assert.equal((await detail(t, c.uuid)).status, 'PENDING', 'nothing was charged');
      }
    } finally {
      await context.close();
    }
  });
});
