// test-engines: pglite. What a browser sees does not depend on the engine; the same answers and
// stored rows are tested on both engines by test/events/released-event.test.ts and the files
// beside this one. (scripts/test-engines.mjs reads this line.)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { addDays, type Language } from '../../src/domain/index.ts';
import { createDeferredPayments, deferredHoldsRepository } from '../../src/holds/index.ts';
import { atEachWidth, axeViolations, guestContext, launchChromium, skipWithoutChromium } from '../helpers/browser.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { auditResponses, createRequest, ENGINE } from '../helpers/test-app.ts';

const FUTURE_YEAR = String(new Date().getUTCFullYear() + 2);

/** What the guest reads once the hotel released the hold, in each language. */
const RELEASED: Record<Language, { title: string; text: RegExp; notCancelled: string }> = {
  fr: {
    title: 'Garantie levée',
    text: /L’établissement a levé la garantie de 95,00\s€ posée sur votre carte\. Aucun montant n’a été débité\./,
    notCancelled: 'Demande annulée',
  },
  en: {
    title: 'Guarantee released',
    text: /The hotel has released the guarantee of €95\.00 on your card\. Nothing has been charged\./,
    notCancelled: 'Request cancelled',
  },
  de: {
    title: 'Garantie aufgehoben',
    text: /Die Unterkunft hat die Garantie über 95,00\s€ auf Ihrer Karte aufgehoben\. Es wurde nichts abgebucht\./,
    notCancelled: 'Anfrage storniert',
  },
};

describe(`guest outcomes in a real browser: a released hold, another card and its time (${ENGINE})`, {
  skip: skipWithoutChromium,
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

  async function registerCard(page: Page, card = '4242424242424242'): Promise<void> {
    await page.fill('#card_number', card);
    await page.fill('#exp_month', '12');
    await page.fill('#exp_year', FUTURE_YEAR);
    await page.fill('#cvv', '123');
    await Promise.all([page.waitForURL(/\/result\/$/), page.click('button[type="submit"]')]);
  }

  async function noSidewaysScroll(page: Page, what: string): Promise<void> {
    const w = (await page.evaluate(
      '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })',
    )) as { scroll: number; client: number };
    assert.ok(w.scroll <= w.client, `${what}: horizontal scroll ${JSON.stringify(w)}`);
  }

  for (const language of ['fr', 'en', 'de'] as const) {
    test(`${language}: the guest registers a card, the hotel releases the hold, the same link says the guarantee was released`, async () => {
      const { context, page, cspErrors } = await guestContext(browser, t.baseUrl);
      try {
        const c = await createRequest(t, { language, request_type: 'IMPRINT', amount: 95 });
        await page.goto(c.payment_link);
        await registerCard(page);
        await page.locator('h1').first().waitFor();
        // The daily job's hold, then the guest arrives and the hotel releases it.
        await arrangeStatus(t.db, c.uuid, 'AUTHORISED_TO_VALIDATE');
        const released = await t.call({ method: 'POST', url: `/api/payment-requests/${c.uuid}/release/` });
        assert.equal(released.statusCode, 200, released.body);
        assert.equal(released.json().status, 'CANCELLED');

        const words = RELEASED[language];
        for (const url of [c.payment_link, `${c.payment_link}result/`]) {
          await page.goto(url);
          await atEachWidth(page, async (width) => {
            assert.equal(await page.locator('h1').textContent(), words.title, `${url} at ${width}`);
            const main = String(await page.locator('main').textContent()).replace(/\s+/g, ' ');
            assert.match(main, words.text);
            assert.ok(!main.includes(words.notCancelled), `${url}: not a cancellation`);
            assert.match(main, /424242XXXXXX4242/, 'the card whose guarantee it was');
            assert.equal(await page.locator('form').count(), 0, 'no card form');
            await noSidewaysScroll(page, `${language} ${url} at ${width}`);
          });
          const violations = await axeViolations(page);
          assert.deepEqual(violations, [], JSON.stringify(violations, null, 2));
        }
        assert.deepEqual(cspErrors, []);
      } finally {
        await context.close();
      }
    });
  }

  test('de: a card blocked after registration, another card on the same link: "registered" with the new card, its time and zone', async () => {
    const { context, page, cspErrors } = await guestContext(browser, t.baseUrl);
    try {
      const day = '2026-12-10';
      const c = await createRequest(t, {
        language: 'de',
        request_type: 'IMPRINT',
        amount: 120,
        reservation_data: { checkin: addDays(day, 2) },
      });
      await page.goto(c.payment_link);
      await registerCard(page, '4000000000000341');
      await page.locator('h1', { hasText: 'Karte als Garantie hinterlegt' }).waitFor();
      // The first registration three days back, so the two times differ by their date.
      await t.db.query(
        `UPDATE status_history SET created_at = created_at - interval '3 days'
          WHERE payment_request_id = $1 AND to_status = 'AUTHORISED'`,
        [c.uuid],
      );
      const run = await createDeferredPayments(
        { holds: deferredHoldsRepository(t.db), runner: t.app.payreq.runner, cardTokens: t.app.payreq.cardTokens },
        day,
      );
      assert.equal(run.refused, 1, 'the bank refuses the hold: a failed guarantee');
      await page.goto(c.payment_link);
      await page.locator('text=Ihre Bank hat die auf Ihrer Karte').waitFor();
      await registerCard(page);
      await page.locator('h1', { hasText: 'Karte als Garantie hinterlegt' }).waitFor();
      const today = new Intl.DateTimeFormat('de-DE', { dateStyle: 'long', timeZone: 'Europe/Paris' }).format(
        new Date(),
      );
      await atEachWidth(page, async (width) => {
        const row = page.locator('dl.summary div', { has: page.locator('dt', { hasText: 'Hinterlegt am' }) });
        const when = String(await row.locator('dd').textContent()).replace(/[\u00a0\u202f]/g, ' ');
        assert.ok(when.startsWith(`${today} um `), `${width}: ${when}, the second card's day`);
        assert.match(when, /um \d{2}:\d{2} (MEZ|MESZ)$/, `${width}: the time says its zone`);
        assert.match(String(await page.locator('main').textContent()), /424242XXXXXX4242/, 'the new card');
        await noSidewaysScroll(page, `de result at ${width}`);
      });
      assert.deepEqual(cspErrors, []);
    } finally {
      await context.close();
    }
  });
});
