// test-engines: pglite. How the list lays out in a browser does not depend on the engine; the
// rows it shows are tested on both engines by the HTTP tests beside this one.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { atEachWidth, axeViolations, launchChromium, skipWithoutChromium, WIDTHS } from '../helpers/browser.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { createRequest, ENGINE } from '../helpers/test-app.ts';
import { createUser, PASSWORD } from './control-client.ts';

const LANGUAGES = [
  ['en', 'en-GB', 'Filters', '24 Dec 2026'],
  ['fr', 'fr-FR', 'Filtres', '24 déc. 2026'],
  ['de', 'de-DE', 'Filter', '24.12.2026'],
] as const;

/**
 * Each card cell at 375 px: where its label ends and where each line of its content starts. A
 * line that starts under the label reads as part of it (the e-mail under "Guest").
 */
function cellLines(page: Page): Promise<{ label: string; lineLefts: number[] }[]> {
  return page
    .locator('tbody tr')
    .first()
    .locator('td[data-label]')
    .evaluateAll((cells) =>
      cells.map((cell) => {
        const box = cell.getBoundingClientRect();
        const range = document.createRange();
        range.selectNodeContents(cell);
        const lines = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
        return {
          label: cell.getAttribute('data-label') ?? '',
          lineLefts: lines.map((r) => Math.round(r.left - box.left)),
        };
      }),
    );
}

describe(`the requests list on a phone: cards with a label column, filters folded, one date style (${ENGINE})`, {
  skip: skipWithoutChromium,
  timeout: 300_000,
}, () => {
  let t: ListeningApp;
  let browser: Browser;
  let address = 0;

  before(async () => {
    t = await startListeningApp({ env: { TRUST_PROXY: 'true' } });
    browser = await launchChromium();
    await createUser(t, 'desk-cards', t.tenant.tenantId, 'frontdesk');
    for (let i = 0; i < 3; i++) {
      await createRequest(t, {
        request_type: 'IMPRINT',
        guest_first_name: 'Maximiliane-Françoise',
        guest_last_name: `Cards${i}`,
        guest_email: `maximiliane.francoise.${i}@reservations.example.com`,
        reservation_data: { checkin: '2026-12-24' },
      });
    }
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  async function signedIn(locale: string) {
    address++;
    const context = await browser.newContext({
      baseURL: t.baseUrl,
      viewport: { width: WIDTHS[1], height: 812 },
      locale,
      extraHTTPHeaders: { 'x-forwarded-for': `203.0.113.${60 + address}` },
    });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto('/control/sign-in');
    await page.locator('#username').fill('desk-cards');
    await page.locator('#password').fill(PASSWORD);
    await page.locator('form[action="/control/sign-in"] button[type="submit"]').click();
    await page.waitForURL('**/control/requests');
    return { context, page };
  }

  for (const [language, locale, filters, checkin] of LANGUAGES) {
    test(`${language}: at 375 px every line of a cell starts after its label, the first request is on the first screen`, async () => {
      const { context, page } = await signedIn(locale);
      await atEachWidth(
        page,
        async (width) => {
          const where = `${language} at ${width} px`;
          const summary = page.locator('details.fold > summary');
          const search = page.locator('#f-q');
          if (width === 375) {
            // Folded: the heading opens them; the first request's card starts on the first screen.
            assert.equal(await search.isVisible(), false, `the filters are folded (${where})`);
            assert.equal((await summary.textContent())?.trim(), filters);
            const first = await page.locator('tbody tr').first().boundingBox();
            assert.ok(first && first.y < 812, `the first request at ${first?.y} px (${where})`);
            for (const cell of await cellLines(page)) {
              const under = cell.lineLefts.filter((left) => left < 120);
              assert.deepEqual(under, [], `a line of "${cell.label}" under its label (${where}): ${cell.lineLefts}`);
            }
            const guest = (await cellLines(page)).find((c) => c.lineLefts.length >= 2);
            assert.ok(guest, 'a cell of two lines was measured');
            await summary.click();
            assert.ok(await search.isVisible(), `opened by its heading (${where})`);
            await summary.click();
          } else {
            assert.ok(await search.isVisible(), `the filters are open (${where})`);
          }
          // One date style on the page: the check-in in words, as the creation dates.
          const row = page.locator('tbody tr').first();
          assert.ok((await row.textContent())?.includes(checkin), `the check-in as ${checkin} (${where})`);
          assert.doesNotMatch((await row.textContent()) ?? '', /2026-12-24/);
          assert.deepEqual(await axeViolations(page), [], `axe (${where})`);
        },
        WIDTHS,
        812,
      );
      // A filter in use: open on the phone too, so the reader sees what filters the list.
      await page.setViewportSize({ width: 375, height: 812 });
      await page.goto('/control/requests?q=Cards1');
      assert.ok(await page.locator('#f-q').isVisible(), `a filter in use stays open (${language})`);
      await context.close();
    });
  }
});
