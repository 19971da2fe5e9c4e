// test-engines: pglite. What a browser sees (the pages, accessibility, the forms without
// JavaScript) does not depend on the engine; the same flows' answers and stored rows are tested
// on both engines by webhooks.test.ts.
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContextOptions } from 'playwright-core';
import { deliverDueWebhooks } from '../../src/webhooks/index.ts';
import {
  atEachWidth,
  axeViolations,
  keepScreenshot,
  launchChromium,
  skipWithoutChromium,
  WIDTHS,
} from '../helpers/browser.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { createRequest, ENGINE } from '../helpers/test-app.ts';
import { type Receiver, startReceiver } from '../webhooks/receiver.ts';
import { createUser, PASSWORD } from './control-client.ts';

// Screenshots for a reviewer, in the checkout's git-ignored test-results/ (as browser.test.ts).
const SCREENSHOTS = path.join(path.dirname(realpathSync(path.resolve('package.json'))), 'test-results', 'control');

describe(`back-office webhooks in a real browser (${ENGINE})`, { skip: skipWithoutChromium, timeout: 300_000 }, () => {
  let t: ListeningApp;
  let browser: Browser;
  let receiver: Receiver;
  let address = 0;

  before(async () => {
    // The receiver is on loopback: private targets allowed, as for a PMS on the premises.
    t = await startListeningApp({ env: { TRUST_PROXY: 'true', WEBHOOKS_ALLOW_PRIVATE: 'on' } });
    browser = await launchChromium();
    mkdirSync(SCREENSHOTS, { recursive: true });
    await createUser(t, 'hooks', t.tenant.tenantId);
    receiver = await startReceiver();
  });
  after(async () => {
    await browser?.close();
    await receiver?.close();
    await t?.close();
  });

  const deliver = () =>
    deliverDueWebhooks(
      { db: t.db, repos: t.repos, secretKeys: t.app.payreq.secretKeys },
      { retryBaseMs: 10, timeoutMs: 2000, allowPrivate: true },
    );

  /** A signed-in browser of its own (own address: the sign-in throttle is per test). */
  async function signedIn(opts: BrowserContextOptions = {}) {
    address++;
    const context = await browser.newContext({
      baseURL: t.baseUrl,
      viewport: { width: 1280, height: 900 },
      locale: 'en-GB',
      extraHTTPHeaders: { 'x-forwarded-for': `203.0.113.${150 + address}` },
      ...opts,
    });
    const page = await context.newPage();
    const cspErrors: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) cspErrors.push(m.text());
    });
    await page.goto('/control/sign-in');
    await page.getByLabel(/Username|Nom d[’']utilisateur|Benutzername/).fill('hooks');
    await page.getByLabel(/Password|Mot de passe|Passwort/).fill(PASSWORD);
    await page.getByRole('button', { name: /Sign in|Se connecter|Anmelden/ }).click();
    await page.waitForURL('**/control/requests');
    return { context, page, cspErrors };
  }

  test('without JavaScript: add, see the secret once, read the log, send again, rotate and disable after confirming', async () => {
    const { context, page, cspErrors } = await signedIn({ javaScriptEnabled: false });
    try {
      await page.getByRole('navigation').getByRole('link', { name: 'Webhooks' }).click();
      await page.waitForURL('**/control/webhooks');
      await page.getByLabel('URL').fill(receiver.url);
      await page.getByLabel('Not initiated').check();
      await page.getByRole('button', { name: 'Add the endpoint' }).click();
      const secret = await page.locator('#new-secret').inputValue();
      assert.match(secret, /^whsec_/);
      await keepScreenshot(page, path.join(SCREENSHOTS, 'webhooks-new.png'));
      await page.reload();
      assert.equal(await page.locator('#new-secret').count(), 0, 'shown once');

      await createRequest(t, { reservation_ref: 'HOOK-BROWSER' });
      await deliver();
      await receiver.waitFor(1);
      await page.getByRole('link', { name: `Delivery log of ${receiver.url}` }).click();
      await page.getByText(/Attempt 1, .*: HTTP 200 \(\d+ ms\)/).waitFor();
      await keepScreenshot(page, path.join(SCREENSHOTS, 'webhooks-log.png'));
      await page.getByRole('button', { name: /^Send again: event \d+$/ }).click();
      await page.getByText('Queued again').waitFor();
      await deliver();
      await receiver.waitFor(2);
      await page.getByRole('link', { name: 'Back to the webhooks' }).click();

      await page.getByRole('button', { name: `Rotate the secret of ${receiver.url}` }).click();
      await page.getByText('keeps signing beside it for 24 hours').waitFor();
      await page.getByRole('button', { name: 'Rotate the secret' }).click();
      const rotated = await page.locator('#new-secret').inputValue();
      assert.match(rotated, /^whsec_/);
      assert.notEqual(rotated, secret);

      await page.getByRole('button', { name: `Disable ${receiver.url}` }).click();
      await page.getByRole('button', { name: 'Disable' }).click();
      await page.getByText('The endpoint is disabled.').waitFor();
      assert.equal((await t.repos.webhooks.listEndpoints(t.tenant.tenantId))[0]?.status, 'disabled');
      await page.getByRole('button', { name: `Enable ${receiver.url}` }).click();
      await page.getByText('The endpoint is enabled').waitFor();
      assert.equal((await t.repos.webhooks.listEndpoints(t.tenant.tenantId))[0]?.status, 'enabled');
      assert.deepEqual(cspErrors, []);
    } finally {
      await context.close();
    }
  });

  test('every webhooks page is axe-clean at 375 and 1280 px, in English, French and German', async () => {
    const [endpoint] = await t.repos.webhooks.listEndpoints(t.tenant.tenantId);
    assert.ok(endpoint, 'the previous test added one');
    const pages = [
      '/control/webhooks',
      `/control/webhooks/${endpoint.id}`,
      `/control/webhooks/${endpoint.id}/confirm-disable`,
      `/control/webhooks/${endpoint.id}/confirm-rotate`,
    ];
    // One context per language; each page checked at both widths on the same load, resized between.
    for (const locale of ['en-GB', 'fr-FR', 'de-DE']) {
      const { context, page } = await signedIn({ locale, viewport: { width: WIDTHS[0], height: 900 } });
      try {
        for (const url of pages) {
          await page.goto(url);
          assert.equal(await page.locator('html').getAttribute('lang'), locale.slice(0, 2));
          await atEachWidth(page, async (width) => {
            const found = await axeViolations(page);
            assert.deepEqual(found, [], `${url} (${locale}, ${width} px): ${JSON.stringify(found, null, 1)}`);
            // Nothing wider than the screen: wide tables scroll in their own box.
            const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
            assert.ok(Number(overflow) <= 0, `${url} (${locale}, ${width} px) scrolls sideways by ${overflow}px`);
            if (url === pages[0] && width === 375) {
              await keepScreenshot(page, path.join(SCREENSHOTS, `webhooks-${locale}-375.png`));
            }
          });
        }
      } finally {
        await context.close();
      }
    }
  });
});
