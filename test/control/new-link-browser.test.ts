// test-engines: pglite. What a browser sees does not depend on the engine; the same flow's
// stored rows are tested on both engines by test/control/new-link.test.ts and
// test/control/refused-request.test.ts. (scripts/test-engines.mjs reads this line.)
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { atEachWidth, axeViolations, keepScreenshot, launchChromium, skipWithoutChromium } from '../helpers/browser.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { createRequest, ENGINE } from '../helpers/test-app.ts';
import { createUser, PASSWORD } from './control-client.ts';

/** What each language calls what the test looks for. */
const LANGUAGES = [
  {
    language: 'en',
    locale: 'en-GB',
    title: 'The bank refused the guest’s card',
    reason: 'Insufficient funds',
    button: 'Send a new link',
    replaces: 'Replaces',
    replacedBy: 'Replaced by',
  },
  {
    language: 'fr',
    locale: 'fr-FR',
    title: 'La banque a refusé la carte du client',
    reason: 'Provision insuffisante',
    button: 'Envoyer un nouveau lien',
    replaces: 'Remplace',
    replacedBy: 'Remplacée par',
  },
  {
    language: 'de',
    locale: 'de-DE',
    title: 'Die Bank hat die Karte des Gastes abgelehnt',
    reason: 'Unzureichende Deckung',
    button: 'Neuen Link senden',
    replaces: 'Ersetzt',
    replacedBy: 'Ersetzt durch',
  },
] as const;

// The front desk opens a refused request: why the bank refused, then "Send a new link", which
// lands on the new request with its link to copy; both pages name the other. At a laptop's and a
// phone's width, in each language of the back office, with no axe-core violation.
describe(`a refused request and "Send a new link" in a real browser (${ENGINE})`, {
  skip: skipWithoutChromium,
  timeout: 240_000,
}, () => {
  let t: ListeningApp;
  let browser: Browser;
  let address = 0;
  before(async () => {
    t = await startListeningApp({ env: { TRUST_PROXY: 'true' } });
    browser = await launchChromium();
    await createUser(t, 'desk-new-link', t.tenant.tenantId, 'frontdesk');
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  async function signedIn(locale: string) {
    address++;
    const context = await browser.newContext({
      baseURL: t.baseUrl,
      viewport: { width: 1280, height: 900 },
      locale,
      extraHTTPHeaders: { 'x-forwarded-for': `203.0.113.${60 + address}` },
    });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto('/control/');
    await page.getByLabel(/Username|Nom d[’']utilisateur|Benutzername/).fill('desk-new-link');
    await page.getByLabel(/Password|Mot de passe|Passwort/).fill(PASSWORD);
    await page.getByRole('button', { name: /Sign in|Se connecter|Anmelden/ }).click();
    await page.waitForURL('**/control/requests');
    return { context, page };
  }

  async function checkedAtEachWidth(page: Page, what: string) {
    await atEachWidth(page, async (width) => {
      const widths = (await page.evaluate(
        '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })',
      )) as { scroll: number; client: number };
      assert.ok(widths.scroll <= widths.client, `${what} at ${width}: horizontal scroll ${JSON.stringify(widths)}`);
      assert.deepEqual(await axeViolations(page), [], `${what} at ${width}`);
      await keepScreenshot(page, `test-results/${what.replaceAll(' ', '-')}-${width}.png`);
    });
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  for (const w of LANGUAGES) {
    test(`${w.language}: the bank's reason, then a new request linked both ways, at 1280 and 375 px`, async () => {
      const old = await createRequest(t, { request_type: 'DEPOSIT', amount: 95, language: w.language });
      const outcome = await t.app.payreq.notifications.apply('lyra', {
        eventId: `evt_${randomBytes(8).toString('hex')}`,
        paymentRequestId: old.uuid,
        outcome: 'refused',
        declineCode: 'ACQ_001/51',
      });
      assert.equal(outcome, 'applied');
      const { context, page } = await signedIn(w.locale);
      try {
        await page.goto(`/control/requests/${old.uuid}`);
        const notice = page.locator('section[aria-labelledby="refusal-h"]');
        assert.equal((await notice.locator('h2').innerText()).trim(), w.title);
        assert.match(await notice.innerText(), new RegExp(`${w.reason}\\.\\s*ACQ_001/51`));
        const button = page.getByRole('button', { name: w.button });
        await checkedAtEachWidth(page, 'the refused request');
        await atEachWidth(page, async (width) => assert.ok(await button.isVisible(), `the button at ${width}`));
        await page.setViewportSize({ width: 1280, height: 900 });

        await Promise.all([page.waitForURL(/\/control\/requests\/[0-9a-f-]{36}$/), button.click()]);
        const newId = page.url().split('/').at(-1) as string;
        assert.notEqual(newId, old.uuid);
        const replaces = page.locator('dl.replacement');
        assert.match(await replaces.innerText(), new RegExp(`${w.replaces}\\s+${old.reference}`));
        assert.equal(await page.inputValue('#payment-link'), `${t.baseUrl}/payment/${newId}/`);
        await checkedAtEachWidth(page, 'the new request');

        await page.getByRole('link', { name: old.reference }).click();
        await page.waitForURL(`**/control/requests/${old.uuid}`);
        assert.match(await page.locator('dl.replacement').innerText(), new RegExp(w.replacedBy));
        assert.equal(await page.getByRole('button', { name: w.button }).count(), 0, 'replaced once');
      } finally {
        await context.close();
      }
    });
  }
});
