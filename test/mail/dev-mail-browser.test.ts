// test-engines: pglite. What a browser sees of the development mail viewer does not depend on
// the engine; what it lists, and that production has none of it, is tested on both engines in
// test/mail/dev-mail-viewer.test.ts. (scripts/test-engines.mjs reads this line.)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { sendDueEmails } from '../../src/mail/index.ts';
import { atEachWidth, axeViolations, launchChromium, skipWithoutChromium } from '../helpers/browser.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { createRequest, ENGINE, newKey } from '../helpers/test-app.ts';

describe(`the development mail viewer in a real browser (${ENGINE})`, { skip: skipWithoutChromium }, () => {
  let t: ListeningApp;
  let browser: Browser;
  before(async () => {
    t = await startListeningApp({ env: { NODE_ENV: 'development', LOG_LEVEL: 'silent' } });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('the list, then a message: its HTML as the guest sees it, framed and inert, and its text; at 1280 and 375 px', async () => {
    const tenant = await t.repos.tenants.create({ name: 'Hôtel du Lac', confirmationEmail: true });
    const hotel = await newKey(t.repos, tenant.id);
    const r = await createRequest(
      t,
      { request_type: 'DEPOSIT', amount: 80, language: 'de', guest_email: 'hans@example.com' },
      hotel,
    );
    assert.equal((await sendDueEmails(t.app.payreq)).logged, 1);
    const context = await browser.newContext({ baseURL: t.baseUrl });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    try {
      await page.goto('/dev/mail');
      const subject = 'Hôtel du Lac: Anzahlung für Ihre Reservierung';
      await atEachWidth(page, async (width) => {
        assert.ok(await page.getByRole('link', { name: subject }).isVisible(), `the e-mail listed at ${width}`);
        assert.deepEqual(await axeViolations(page), [], `list at ${width}`);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `the list scrolls sideways by ${overflow} px at ${width} px`);
      });
      await page.getByRole('link', { name: subject }).click();
      await page.waitForURL(/\/dev\/mail\/\d+$/);
      await atEachWidth(page, async (width) => {
        assert.equal(await page.locator('h1').textContent(), subject);
        // The HTML part, in its frame: what the guest's mail program shows.
        const mail = page.frameLocator('iframe');
        assert.equal(await mail.locator('h1').textContent(), 'Hôtel du Lac', `the e-mail's heading at ${width}`);
        const button = mail.getByRole('link', { name: /bezahlen|Zahlung/i }).first();
        assert.match(String(await button.getAttribute('href')), new RegExp(`/payment/${r.uuid}/$`));
        assert.match(String(await page.locator('pre').textContent()), new RegExp(`/payment/${r.uuid}/`));
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `the message scrolls sideways by ${overflow} px at ${width} px`);
      });
      // The frame is a sandbox: nothing in an e-mail can run, even if it tried.
      assert.equal(await page.locator('iframe').getAttribute('sandbox'), '');
    } finally {
      await context.close();
    }
  });
});
