// test-engines: pglite. What a browser sees of the export form does not depend on the engine;
// the files themselves are tested on both engines in test/exports/ledger-columns.test.ts.
// (scripts/test-engines.mjs reads this line.)
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { atEachWidth, injectAxe, launchChromium, skipWithoutChromium, WIDTHS } from '../helpers/browser.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { createRequest, ENGINE } from '../helpers/test-app.ts';
import { createUser, PASSWORD } from './control-client.ts';

async function axeViolations(page: Page): Promise<string[]> {
  await injectAxe(page);
  return page.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] }, resultTypes: ['violations'] })
    .then((r) => r.violations.map((v) => v.id + ': ' + v.help + ' @ ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`);
}

/** The form's words in each language: the choice's label and the ledger's button. */
const WORDS = {
  en: { label: 'Spreadsheet', ledger: 'Ledger movements (CSV)', french: 'Excel, French (; and 12,50)' },
  fr: { label: 'Tableur', ledger: 'Mouvements du registre (CSV)', french: 'Excel, français (; et 12,50)' },
  de: { label: 'Tabellenkalkulation', ledger: 'Kontobewegungen (CSV)', french: 'Excel, französisch (; und 12,50)' },
} as const;

describe(`the export form's spreadsheet choice in a real browser (${ENGINE})`, {
  skip: skipWithoutChromium,
  timeout: 180_000,
}, () => {
  let t: ListeningApp;
  let browser: Browser;
  before(async () => {
    t = await startListeningApp({ env: { TRUST_PROXY: 'true' } });
    browser = await launchChromium();
    // A French hotel: its spreadsheet wants `;` and decimal commas.
    await t.repos.tenants.update(t.tenant.tenantId, { digest_language: 'fr' });
    await createUser(t, 'desk-export', t.tenant.tenantId);
    const paid = await createRequest(t, { request_type: 'DEPOSIT', amount: 150.5, reservation_ref: 'EXPORT-1' });
    await arrangeStatus(t.db, paid.uuid, 'CAPTURED', { amountCaptured: 15050 });
    const refund = await t.call({
      method: 'POST',
      url: `/api/payment-requests/${paid.uuid}/refund/`,
      payload: { amount: 20 },
    });
    assert.equal(refund.statusCode, 200, refund.body);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('fr, en, de at 375 and 1280 px: the hotel’s dialect preselected, axe-clean, nothing wider than the screen; the file is the one chosen', async () => {
    const context = await browser.newContext({
      baseURL: t.baseUrl,
      viewport: { width: WIDTHS[0], height: 900 },
      acceptDownloads: true,
      extraHTTPHeaders: { 'x-forwarded-for': '203.0.113.77' },
    });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    try {
      await page.goto('/control/sign-in');
      await page.getByLabel('Username').fill('desk-export');
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL('**/control/requests');
      for (const language of ['fr', 'en', 'de'] as const) {
        const w = WORDS[language];
        await page.goto(`/control/language/${language}?back=${encodeURIComponent('/control/requests?q=EXPORT-1')}`);
        await page.waitForURL('**/control/requests?q=EXPORT-1');
        await atEachWidth(page, async (width) => {
          const choice = page.getByLabel(w.label);
          assert.ok(await choice.isVisible(), `${language} at ${width}: the choice`);
          assert.equal(await choice.inputValue(), 'excel-fr', 'the French hotel’s dialect');
          assert.equal(await choice.locator('option:checked').textContent(), w.french);
          assert.ok(await page.getByRole('button', { name: w.ledger }).isVisible());
          assert.deepEqual(await axeViolations(page), [], `${language} at ${width} px`);
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
          assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px at ${width} px in ${language}`);
        });
      }

      // As preselected: the French spreadsheet's file, the filter carried.
      const french = await download(page, WORDS.de.ledger);
      assert.ok(french.startsWith('\uFEFFmovement_id;at;reference;'), french.slice(0, 60));
      assert.match(french, /;payment;succeeded;EUR;150,50;;150,50;/);
      assert.match(french, /;refund;succeeded;EUR;-20,00;;-20,00;/);
      // Another choice: RFC 4180.
      await page.getByLabel(WORDS.de.label).selectOption('rfc4180');
      const rfc = await download(page, WORDS.de.ledger);
      assert.ok(rfc.startsWith('\uFEFFmovement_id,at,reference,'), rfc.slice(0, 60));
      assert.match(rfc, /,refund,succeeded,EUR,-20\.00,,-20\.00,/);
    } finally {
      await context.close();
    }
  });

  async function download(page: Page, button: string): Promise<string> {
    const [file] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: button }).click(),
    ]);
    assert.match(file.suggestedFilename(), /^payreq-ledger-\d{4}-\d\d-\d\d\.csv$/);
    const where = await file.path();
    return readFile(where, 'utf8');
  }
});
