// test-engines: pglite. What a browser sees (the QR code, the key, the forms without JavaScript,
// accessibility) does not depend on the engine; the same flows' answers and stored rows are
// tested on both engines by two-factor.test.ts and sessions.test.ts.
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axeViolations, keepScreenshot, launchChromium, skipWithoutChromium } from '../helpers/browser.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { ENGINE } from '../helpers/test-app.ts';
import { codeFor } from '../helpers/totp.ts';
import { createUser, PASSWORD } from './control-client.ts';

// Screenshots for a reviewer, in the checkout's git-ignored test-results/ (as browser.test.ts).
const SCREENSHOTS = path.join(path.dirname(realpathSync(path.resolve('package.json'))), 'test-results', 'control');

describe(`two-factor sign-in in a real browser (${ENGINE})`, { skip: skipWithoutChromium, timeout: 300_000 }, () => {
  let t: ListeningApp;
  let browser: Browser;
  // The back office's clock, moved a 30-second step when the test needs a new code.
  let clock = new Date();
  const nextStep = () => {
    clock = new Date(clock.getTime() + 30_000);
  };
  let address = 0;

  before(async () => {
    t = await startListeningApp({ env: { TRUST_PROXY: 'true' }, now: () => clock });
    browser = await launchChromium();
    mkdirSync(SCREENSHOTS, { recursive: true });
    await createUser(t, 'desk', t.tenant.tenantId);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  async function newPage(): Promise<{ page: Page; cspErrors: string[]; close: () => Promise<void> }> {
    address++;
    const context = await browser.newContext({
      baseURL: t.baseUrl,
      viewport: { width: 375, height: 800 },
      extraHTTPHeaders: { 'x-forwarded-for': `203.0.113.${100 + address}` },
    });
    const page = await context.newPage();
    const cspErrors: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) cspErrors.push(m.text());
    });
    return { page, cspErrors, close: () => context.close() };
  }

  async function password(page: Page): Promise<void> {
    await page.goto('/control/sign-in');
    await page.getByLabel('Username').fill('desk');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  async function noViolations(page: Page, what: string): Promise<void> {
    const found = await axeViolations(page);
    assert.deepEqual(
      found.map((v) => `${v.id}: ${v.help} @ ${v.nodes.join(', ')}`),
      [],
      what,
    );
  }

  let key = '';

  test('enrol from the account page: QR code and key, a code the test computes from the key, 10 recovery codes', async () => {
    const { page, cspErrors, close } = await newPage();
    await password(page);
    await page.waitForURL('**/control/requests');
    await page.getByRole('link', { name: 'Signed in as desk' }).click();
    await page.waitForURL('**/control/account');
    await noViolations(page, 'account page');
    await page.getByRole('link', { name: 'Two-factor sign-in' }).click();
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    const qr = page.getByRole('img', { name: 'QR code to scan with your authenticator app' });
    await qr.waitFor();
    // The QR code is drawn (a data: SVG the CSP allows), not a broken image.
    assert.ok(await qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0));
    key = (await page.locator('#totp-secret').textContent()) ?? '';
    assert.match(key, /^[A-Z2-7]{4}( [A-Z2-7]{1,4})+$/);
    await noViolations(page, 'enrolment page');
    await keepScreenshot(page, path.join(SCREENSHOTS, 'two-factor-enrol-375.png'));
    await page.getByLabel('Code from the app').fill(codeFor(key, clock));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
    assert.equal(await page.locator('#recovery-codes li').count(), 10);
    await noViolations(page, 'recovery codes page');
    await keepScreenshot(page, path.join(SCREENSHOTS, 'two-factor-recovery-codes-375.png'));
    assert.deepEqual(cspErrors, []);
    await close();
  });

  test('sign-in asks for the code after the password; a used code is refused, a new one signs in', async () => {
    const { page, cspErrors, close } = await newPage();
    await password(page);
    await page.waitForURL('**/control/sign-in/code');
    await noViolations(page, 'code step');
    // The code of the step used to confirm the enrolment: used already.
    await page.getByLabel('Code from the app').fill(codeFor(key, clock));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('That code is not right, or was used already.').waitFor();
    nextStep();
    await page.getByLabel('Code from the app').fill(codeFor(key, clock));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/control/requests');
    assert.deepEqual(cspErrors, []);
    await close();
  });

  test('from the sessions page, another session is signed out: its next page is the sign-in', async () => {
    const laptop = await newPage();
    const phone = await newPage();
    for (const { page } of [laptop, phone]) {
      nextStep();
      await password(page);
      await page.waitForURL('**/control/sign-in/code');
      await page.getByLabel('Code from the app').fill(codeFor(key, clock));
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL('**/control/requests');
    }
    await laptop.page.goto('/control/account/sessions');
    await noViolations(laptop.page, 'sessions page');
    await keepScreenshot(laptop.page, path.join(SCREENSHOTS, 'account-sessions-375.png'));
    await laptop.page.getByRole('button', { name: 'Sign out every other session' }).click();
    await laptop.page.getByText(/Other sessions signed out: \d+\./).waitFor();
    await phone.page.goto('/control/requests');
    await phone.page.waitForURL(/\/control\/sign-in$/);
    await phone.page.getByRole('button', { name: 'Sign in' }).waitFor();
    await laptop.page.goto('/control/requests');
    assert.match(laptop.page.url(), /\/control\/requests$/, 'the laptop stays signed in');
    await laptop.close();
    await phone.close();
  });
});
