// test-engines: pglite. What a browser sees (pages, accessibility, the CSP, forms without
// JavaScript) does not depend on the engine; the same flows' HTTP answers and stored rows are
// tested on both engines by the files beside this one. (scripts/test-engines.mjs reads this line.)
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import type { Language } from '../../src/domain/index.ts';
import {
  axeViolations,
  keepScreenshot,
  launchChromium,
  guestContext as newGuestContext,
  skipWithoutChromium,
} from '../helpers/browser.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { auditResponses, createRequest, ENGINE } from '../helpers/test-app.ts';

const skip = skipWithoutChromium;

const LANGUAGES: Language[] = ['fr', 'en', 'de'];
const FUTURE_YEAR = String(new Date().getUTCFullYear() + 2);
const SCREENSHOTS = path.join(tmpdir(), 'payreq-guest-screenshots');

describe(`guest page in a real browser (${ENGINE})`, { skip }, () => {
  let t: ListeningApp;
  let browser: Browser;

  before(async () => {
    // TRUST_PROXY: each browser context names its own client address (X-Forwarded-For), so the
    // guest pages' 30 a minute per IP applies per test, not to the whole file.
    t = await startListeningApp({ env: { TRUST_PROXY: 'true' } });
    browser = await launchChromium();
    mkdirSync(SCREENSHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    if (t) {
      auditResponses(t);
      await t.close();
    }
  });

  const guestContext = (opts: BrowserContextOptions = {}) => newGuestContext(browser, t.baseUrl, opts);

  const detail = async (uuid: string) =>
    (await t.call({ method: 'GET', url: `/api/payment-requests/${uuid}/` })).json();

  for (const language of LANGUAGES) {
    test(`${language}: zero axe-core violations on the form, the processing page and an outcome; the stylesheet applies under the CSP`, async () => {
      const { context, page, cspErrors } = await guestContext();
      try {
        const imprint = await createRequest(t, { language, request_type: 'IMPRINT' });
        const deposit = await createRequest(t, { language, request_type: 'DEPOSIT', amount: 80 });
        const settled = await createRequest(t, { language, request_type: 'IMPRINT' });
        await arrangeStatus(t.db, settled.uuid, 'REFUSED');
        const pages: { url: string }[] = [
          { url: imprint.payment_link },
          { url: deposit.payment_link },
          { url: `${settled.payment_link}result/` },
          // The processing page: no automatic refresh (WCAG 2.2.1), a link to look again.
          { url: `${imprint.payment_link}result/` },
        ];
        for (const { url } of pages) {
          const response = await page.goto(url);
          assert.equal(response?.status(), 200, url);
          assert.equal(await page.getAttribute('html', 'lang'), language);
          const violations = await axeViolations(page);
          assert.deepEqual(violations, [], `${language} ${url}: ${JSON.stringify(violations, null, 2)}`);
          const background = await page.evaluate('getComputedStyle(document.body).backgroundColor');
          assert.equal(background, 'rgb(243, 244, 246)', 'the stylesheet loaded');
        }
        assert.deepEqual(cspErrors, [], 'nothing was blocked by the CSP');
      } finally {
        await context.close();
      }
    });

    test(`${language}: at 375x667 nothing scrolls sideways; the keyboard goes through the fields in order with a visible focus`, async () => {
      const { context, page } = await guestContext({
        viewport: { width: 375, height: 667 },
        deviceScaleFactor: 2,
        isMobile: true,
        hasTouch: true,
      });
      try {
        const c = await createRequest(t, {
          language,
          request_type: language === 'en' ? 'DEPOSIT' : 'IMPRINT',
          guest_first_name: 'Marie-Françoise',
          guest_last_name: 'de la Tour-Saint-Ygest',
        });
        await page.goto(c.payment_link);
        const widths = (await page.evaluate(
          '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })',
        )) as { scroll: number; client: number };
        assert.ok(widths.scroll <= widths.client, `horizontal scroll: ${JSON.stringify(widths)}`);
        const shot = path.join(SCREENSHOTS, `payment-${language}-375.png`);
        await keepScreenshot(page, shot);

        const order: string[] = [];
        for (let i = 0; i < 5; i++) {
          await page.keyboard.press('Tab');
          order.push(String(await page.evaluate('document.activeElement.id || document.activeElement.tagName')));
        }
        assert.deepEqual(order, ['card_number', 'exp_month', 'exp_year', 'cvv', 'BUTTON']);
        await page.focus('#card_number');
        await page.keyboard.press('Shift+Tab');
        await page.keyboard.press('Tab');
        const outline = await page.evaluate('getComputedStyle(document.activeElement).outlineStyle');
        assert.notEqual(outline, 'none', 'a visible focus ring');
      } finally {
        await context.close();
      }
    });
  }

  async function payWith(page: Page, card: string): Promise<void> {
    await page.fill('#card_number', card);
    await page.fill('#exp_month', '12');
    await page.fill('#exp_year', FUTURE_YEAR);
    await page.fill('#cvv', '123');
    await Promise.all([page.waitForURL(/\/result\/$/), page.click('button[type="submit"]')]);
  }

  test('IMPRINT without JavaScript: fill the card form with 4242…, land on "card registered"; the API says AUTHORISED', async () => {
    const { context, page } = await guestContext({ javaScriptEnabled: false });
    try {
      const c = await createRequest(t, { language: 'fr', request_type: 'IMPRINT', amount: 150 });
      await page.goto(c.payment_link);
      assert.equal((await detail(c.uuid)).status, 'PENDING');
      await payWith(page, '4242424242424242');
      await page.locator('h1', { hasText: 'Carte enregistrée' }).waitFor({ timeout: 15_000 });
      const d = await detail(c.uuid);
      assert.equal(d.status, 'AUTHORISED');
      assert.equal(d.masked_pan, '424242XXXXXX4242');
      assert.equal(d.amount_captured, 0);
      // Going back to the link now shows the outcome, never a second form.
      await page.goto(c.payment_link);
      assert.equal(await page.locator('form').count(), 0);
      assert.equal(await page.locator('h1').textContent(), 'Carte enregistrée en garantie');
    } finally {
      await context.close();
    }
  });

  test('DEPOSIT in English: pay with 4242…, land on "Payment received"; the API says CAPTURED for the amount', async () => {
    const { context, page } = await guestContext();
    try {
      const c = await createRequest(t, { language: 'en', request_type: 'DEPOSIT', amount: 80 });
      await page.goto(c.payment_link);
      await payWith(page, '4242 4242 4242 4242');
      await page.locator('h1', { hasText: 'Payment received' }).waitFor({ timeout: 15_000 });
      assert.match(String(await page.locator('main').textContent()), /€80\.00/);
      const d = await detail(c.uuid);
      assert.equal(d.status, 'CAPTURED');
      assert.equal(d.amount_captured, 80);
    } finally {
      await context.close();
    }
  });

  test('refused card 4000000000000002 in German: "Zahlung abgelehnt"; the API says REFUSED', async () => {
    const { context, page } = await guestContext();
    try {
      const c = await createRequest(t, { language: 'de', request_type: 'IMPRINT' });
      await page.goto(c.payment_link);
      await payWith(page, '4000000000000002');
      await page.locator('h1', { hasText: 'Zahlung abgelehnt' }).waitFor({ timeout: 15_000 });
      assert.equal((await detail(c.uuid)).status, 'REFUSED');
      assert.equal(await page.locator('form').count(), 0);
    } finally {
      await context.close();
    }
  });

  test('technical error 4000000000000119: the result offers to try again, the form comes back, and a good card then succeeds', async () => {
    const { context, page } = await guestContext({ javaScriptEnabled: false });
    try {
      const c = await createRequest(t, { language: 'en', request_type: 'IMPRINT' });
      await page.goto(c.payment_link);
      await payWith(page, '4000000000000119');
      await page.locator('h1', { hasText: 'Technical error' }).waitFor({ timeout: 15_000 });
      assert.equal((await detail(c.uuid)).status, 'ERROR');
      await page.click('text=Try again');
      await page.locator('#card_number').waitFor();
      assert.match(String(await page.locator('main').textContent()), /previous attempt failed/);
      await payWith(page, '4242424242424242');
      await page.locator('h1', { hasText: 'Card registered' }).waitFor({ timeout: 15_000 });
      assert.equal((await detail(c.uuid)).status, 'AUTHORISED');
    } finally {
      await context.close();
    }
  });

  test('the 404 page (French and English) has no axe-core violations either', async () => {
    const { context, page } = await guestContext();
    try {
      const response = await page.goto('/payment/00000000-0000-4000-8000-000000000000/');
      assert.equal(response?.status(), 404);
      assert.deepEqual(await axeViolations(page), []);
    } finally {
      await context.close();
    }
  });
});
