// test-engines: pglite. What a browser sees does not depend on the engine; the refusal's stored
// reason is tested on both engines by test/payments/sandbox-checkout.test.ts and
// test/control/refused-request.test.ts. (scripts/test-engines.mjs reads this line.)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { Language } from '../../src/domain/index.ts';
import {
  atEachWidth,
  axeViolations,
  launchChromium,
  guestContext as newGuestContext,
  skipWithoutChromium,
} from '../helpers/browser.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { auditResponses, createRequest, ENGINE } from '../helpers/test-app.ts';

const FUTURE_YEAR = String(new Date().getUTCFullYear() + 2);
const REFUSED_CARD = '4000000000000002';

/** The refused page's title and its "cannot be paid again" line, in each language. */
const WORDS: Record<Language, { title: RegExp; noRetry: RegExp }> = {
  fr: { title: /refusé/i, noRetry: /ne peut pas être payée à nouveau/ },
  en: { title: /Payment refused/, noRetry: /cannot be paid again online/ },
  de: { title: /Zahlung abgelehnt/, noRetry: /kann online nicht erneut bezahlt werden/ },
};

// A refused card ends the request (REFUSED is final): the guest's way forward is the hotel, so
// its phone and e-mail are on the refused page itself, as links, at a phone's width and a laptop's.
describe(`the refused page shows how to reach the hotel, in a real browser (${ENGINE})`, {
  skip: skipWithoutChromium,
  timeout: 180_000,
}, () => {
  let t: ListeningApp;
  let browser: Browser;
  before(async () => {
    t = await startListeningApp({ env: { TRUST_PROXY: 'true' } });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    if (t) {
      auditResponses(t);
      await t.close();
    }
  });

  async function refuse(page: Page, link: string): Promise<void> {
    await page.goto(link);
    await page.fill('#card_number', REFUSED_CARD);
    await page.fill('#exp_month', '12');
    await page.fill('#exp_year', FUTURE_YEAR);
    await page.fill('#cvv', '123');
    await Promise.all([page.waitForURL(/\/result\/$/), page.click('button[type="submit"]')]);
  }

  for (const language of ['fr', 'en', 'de'] as const) {
    test(`${language}: the hotel's phone and e-mail as links under "cannot be paid again", at 1280 and 375 px`, async () => {
      await t.db.query('UPDATE tenants SET phone = $2, contact_email = $3 WHERE id = $1', [
        t.tenant.tenantId,
        '+33 4 78 00 00 00',
        'reception@hotel.example',
      ]);
      const { context, page } = await newGuestContext(browser, t.baseUrl);
      try {
        const c = await createRequest(t, { language, request_type: 'DEPOSIT', amount: 90 });
        await refuse(page, c.payment_link);
        await page.locator('h1').filter({ hasText: WORDS[language].title }).waitFor({ timeout: 15_000 });
        assert.equal(await page.getAttribute('html', 'lang'), language);
        const main = String(await page.locator('main').textContent());
        assert.match(main, WORDS[language].noRetry);
        const card = page.locator('main .card').first();
        const tel = card.locator('a[href^="tel:"]');
        const mail = card.locator('a[href="mailto:reception@hotel.example"]');
        assert.equal(await tel.getAttribute('href'), 'tel:+33478000000');
        assert.equal(await form(page), 0, 'REFUSED is final: no card form');
        await atEachWidth(page, async (width) => {
          assert.ok(await tel.isVisible(), `${width}: the phone is visible`);
          assert.ok(await mail.isVisible(), `${width}: the e-mail is visible`);
          const widths = (await page.evaluate(
            '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })',
          )) as { scroll: number; client: number };
          assert.ok(widths.scroll <= widths.client, `${width}: horizontal scroll ${JSON.stringify(widths)}`);
          assert.deepEqual(await axeViolations(page), [], `${language} at ${width}`);
        });
      } finally {
        await context.close();
      }
    });
  }

  test('a hotel with neither phone nor e-mail: the page still says to contact it, and shows no empty contact block', async () => {
    await t.db.query('UPDATE tenants SET phone = NULL, contact_email = NULL WHERE id = $1', [t.tenant.tenantId]);
    const { context, page } = await newGuestContext(browser, t.baseUrl);
    try {
      const c = await createRequest(t, { language: 'en', request_type: 'IMPRINT' });
      await refuse(page, c.payment_link);
      await page.locator('h1', { hasText: 'Payment refused' }).waitFor({ timeout: 15_000 });
      assert.match(String(await page.locator('main').textContent()), /contact the hotel/);
      assert.equal(await page.locator('.card p.contact').count(), 0);
    } finally {
      await context.close();
    }
  });
});

const form = (page: Page) => page.locator('form').count();
