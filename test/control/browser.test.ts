// test-engines: pglite. What a browser sees (pages, accessibility, the CSP, forms without
// JavaScript) does not depend on the engine; the same flows' HTTP answers and stored rows are
// tested on both engines by the files beside this one. (scripts/test-engines.mjs reads this line.)
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { runBulkJobs } from '../../src/bulk-actions/index.ts';
import {
  atEachWidth,
  injectAxe,
  keepScreenshot,
  launchChromium,
  skipWithoutChromium,
  WIDTHS,
} from '../helpers/browser.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { checkoutForm, detail, eventually, submitCard } from '../helpers/sandbox-checkout.ts';
import { createBody, createRequest, ENGINE } from '../helpers/test-app.ts';
import { createUser, PASSWORD } from './control-client.ts';

// Screenshots of each main page, for a reviewer to look at, in the checkout's own test-results/
// (git-ignored).
const SCREENSHOTS = fileURLToPath(new URL('../../test-results/control', import.meta.url));

async function axeViolations(page: Page): Promise<string[]> {
  await injectAxe(page);
  // Every rule on, best practices included.
  return page.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] }, resultTypes: ['violations'] })
    .then((r) => r.violations.map((v) => v.id + ': ' + v.help + ' @ ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`);
}

describe(`back office in a real browser (${ENGINE})`, { skip: skipWithoutChromium, timeout: 300_000 }, () => {
  let t: ListeningApp;
  let browser: Browser;
  let address = 0;

  before(async () => {
    t = await startListeningApp({ env: { TRUST_PROXY: 'true' } });
    browser = await launchChromium();
    mkdirSync(SCREENSHOTS, { recursive: true });
    await createUser(t, 'root');
    await createUser(t, 'desk', t.tenant.tenantId);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  /** A signed-in browser of its own (own address: the sign-in throttle is per test). */
  async function signedIn(username: string, width = 1280, locale = 'en-GB') {
    address++;
    const context = await browser.newContext({
      baseURL: t.baseUrl,
      viewport: { width, height: 900 },
      locale,
      extraHTTPHeaders: { 'x-forwarded-for': `203.0.113.${address}` },
    });
    const page = await context.newPage();
    const cspErrors: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) cspErrors.push(m.text());
    });
    await page.goto('/control/');
    await page.getByLabel(/Username|Nom d[’']utilisateur|Benutzername/).fill(username);
    await page.getByLabel(/Password|Mot de passe|Passwort/).fill(PASSWORD);
    await page.getByRole('button', { name: /Sign in|Se connecter|Anmelden/ }).click();
    await page.waitForURL('**/control/requests');
    return { context, page, cspErrors };
  }

  test('a key created in the page is shown once, works against the API, and answers 403 once revoked', async () => {
    const { context, page, cspErrors } = await signedIn('desk');
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Label').fill('Browser PMS');
    await page.getByRole('button', { name: 'Create' }).click();
    const key = await page.locator('#new-key').inputValue();
    assert.match(key, /^[2-9A-HJ-NP-Za-km-z]{8}\.[2-9A-HJ-NP-Za-km-z]{56}$/);
    await keepScreenshot(page, path.join(SCREENSHOTS, 'keys-new.png'));
    const create = () =>
      fetch(`${t.baseUrl}/api/payment-requests/`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify(createBody()),
      });
    assert.equal((await create()).status, 201);
    await page.reload();
    assert.equal(await page.locator('#new-key').count(), 0, 'shown once');
    const prefix = key.split('.')[0] ?? '';
    await page.locator('tr', { hasText: prefix }).getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.waitForURL('**/control/keys?**');
    assert.equal((await create()).status, 403);
    assert.deepEqual(cspErrors, []);
    await context.close();
  });

  test('a partial then a full refund of a paid deposit; the API then shows REFUNDED and amount_refunded', async () => {
    const r = await createRequest(t, { request_type: 'DEPOSIT', amount: 120, guest_last_name: 'Refundable' });
    const paid = await submitCard(await checkoutForm(t, r.uuid), { number: '4242424242424242' });
    assert.ok(paid.status < 400, `payment: ${paid.status}`);
    await eventually(async () => ((await detail(t, r.uuid)).status === 'CAPTURED' ? true : undefined), 'CAPTURED');

    const { context, page } = await signedIn('desk');
    await page.goto(`/control/requests/${r.uuid}`);
    await keepScreenshot(page, path.join(SCREENSHOTS, 'request-detail.png'));
    await page.locator('#amount-refund').fill('20.50');
    await page.getByRole('button', { name: 'Refund' }).click();
    await assert.doesNotReject(page.getByText('Refund twenty euros and fifty cents (€20.50)').waitFor());
    await keepScreenshot(page, path.join(SCREENSHOTS, 'confirm-refund.png'));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('Done.').waitFor();
    let d = await detail(t, r.uuid);
    assert.deepEqual([d.status, d.amount_refunded], ['CAPTURED', 20.5]);
    await page.getByRole('button', { name: 'Refund' }).click();
    await page.getByText('ninety-nine euros and fifty cents').waitFor();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('Done.').waitFor();
    d = await detail(t, r.uuid);
    assert.deepEqual([d.status, d.amount_refunded], ['REFUNDED', 120]);
    await context.close();
  });

  test('bulk capture of three holds, one not capturable: confirmed with the amounts, two captured, one left out', async () => {
    const holds = [];
    for (const amount of [30, 40]) {
      const h = await createRequest(t, { request_type: 'IMPRINT', amount, guest_last_name: 'Bulkbrowser' });
      await arrangeStatus(t.db, h.uuid, 'AUTHORISED_TO_VALIDATE');
      holds.push(h);
    }
    const notHeld = await createRequest(t, { request_type: 'IMPRINT', amount: 50, guest_last_name: 'Bulkbrowser' });
    const { context, page } = await signedIn('desk');
    await page.getByLabel('Search').fill('bulkbrowser');
    await page.getByRole('button', { name: 'Apply' }).click();
    for (const ref of [...holds.map((h) => h.reference), notHeld.reference])
      await page.getByLabel(`Select ${ref}`).check();
    await keepScreenshot(page, path.join(SCREENSHOTS, 'requests-list.png'));
    await page.getByRole('button', { name: 'Capture selected' }).click();
    // Nothing moves yet: the confirmation lists each amount and the total.
    await page.getByRole('heading', { name: 'Confirm the actions on the selected requests' }).waitFor();
    assert.match(await page.locator('main').innerText(), /Total: seventy euros \(€70\.00\)/);
    assert.match(
      (await page.locator('tbody tr').allInnerTexts()).find((x) => x.includes(notHeld.reference)) ?? '',
      /Left out: not possible in status/,
    );
    await keepScreenshot(page, path.join(SCREENSHOTS, 'bulk-confirm.png'));
    assert.equal(await runBulkJobs(t.app.payreq, 10), 0, 'nothing queued before the confirmation');
    await page.getByRole('button', { name: 'Capture these amounts' }).click();
    await page.waitForURL('**/control/bulk/**');
    assert.equal(await runBulkJobs(t.app.payreq, 10), 2);
    await page.reload();
    const rows = await page.locator('tbody tr').allInnerTexts();
    assert.equal(rows.filter((x) => /Done\./.test(x)).length, 2);
    assert.match(await page.locator('main').innerText(), /Moved so far: seventy euros \(€70\.00\)/);
    await keepScreenshot(page, path.join(SCREENSHOTS, 'bulk-progress.png'));
    for (const h of holds) assert.equal((await detail(t, h.uuid)).status, 'CAPTURED');
    await context.close();
  });

  test('a schedule change, then "run now"', async () => {
    const { context, page } = await signedIn('root');
    await page.getByRole('link', { name: 'Scheduled jobs' }).click();
    await page.locator('#cron-expire_payment_requests').fill('15 * * * *');
    await page.locator('section', { hasText: 'expire_payment_requests' }).getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    await page
      .locator('section', { hasText: 'expire_payment_requests' })
      .getByRole('button', { name: 'Run now' })
      .click();
    await page.getByText('Done: the run is the first of the recent runs below.').waitFor();
    await keepScreenshot(page, path.join(SCREENSHOTS, 'schedules.png'));
    assert.equal((await t.repos.schedules.get('expire_payment_requests'))?.cron, '15 * * * *');
    assert.equal((await t.repos.schedules.runs('expire_payment_requests', 1))[0]?.outcome, 'ok');
    await context.close();
  });

  test("a tenant user does not see another tenant's requests", async () => {
    const other = await t.newTenant('Hôtel Ailleurs');
    const theirs = await createRequest(t, { guest_last_name: 'Ailleurs' }, other);
    const { context, page } = await signedIn('desk');
    await page.getByLabel('Search').fill('ailleurs');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('No payment request matches.').waitFor();
    const direct = await page.goto(`/control/requests/${theirs.uuid}`);
    assert.equal(direct?.status(), 404);
    await context.close();
  });

  test('a form posted with a stale CSRF token is refused', async () => {
    const { context, page } = await signedIn('desk');
    await page.goto('/control/settings');
    const before = await t.repos.tenants.find(t.tenant.tenantId);
    await page.getByLabel('Name', { exact: true }).fill('Changed by a stale form');
    // The settings form's token replaced by one from no session of ours.
    await page
      .locator('form[action="/control/settings"] input[name="_csrf"]')
      .evaluate((el) => el.setAttribute('value', 'stale-token'));
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: /This form has expired/ }).waitFor();
    assert.deepEqual(await t.repos.tenants.find(t.tenant.tenantId), before, 'nothing changed');
    await context.close();
  });

  test('New request: a phone booking typed in the form, then its payment link copied', async () => {
    const { context, page } = await signedIn('desk');
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.getByRole('link', { name: 'New request' }).click();
    await page.getByLabel('Type', { exact: true }).selectOption('DEPOSIT');
    await page.getByLabel('Amount', { exact: true }).fill('80,25');
    await page.getByLabel('First name', { exact: true }).fill('Jeanne');
    await page.getByLabel('Last name', { exact: true }).fill('Martin');
    await page.getByLabel('E-mail', { exact: true }).fill('jeanne.phone@example.com');
    await page.getByLabel('Reservation', { exact: true }).fill('PHONE-77');
    await page.getByLabel('Check-in', { exact: true }).fill('2026-12-24');
    // A wrong field first: the form comes back with the error beside it and what was typed.
    await page.getByLabel('Check-out', { exact: true }).fill('2026-12-20');
    await page.getByRole('button', { name: 'Create the request' }).click();
    await page.getByText('Must not be before the check-in').waitFor();
    assert.equal(await page.getByLabel('Reservation', { exact: true }).inputValue(), 'PHONE-77');
    await keepScreenshot(page, path.join(SCREENSHOTS, 'new-request-errors.png'));
    await page.getByLabel('Check-out', { exact: true }).fill('2026-12-27');
    await page.getByRole('button', { name: 'Create the request' }).click();
    await page.waitForURL(/\/control\/requests\/[0-9a-f-]{36}$/);
    const id = page.url().split('/').at(-1) ?? '';
    const link = await page.locator('#payment-link').inputValue();
    assert.match(link, new RegExp(`/payment/${id}/$`));
    await page.getByRole('button', { name: 'Copy' }).click();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);
    assert.deepEqual([(await detail(t, id)).amount, (await detail(t, id)).request_type], [80.25, 'DEPOSIT']);
    await context.close();
  });

  // Each language has its own browser context, request and address, and checks each page at both
  // widths on the same load (resized between): three run side by side, as a page waits on the
  // service and the service on the page (one core each at most).
  describe('axe finds nothing on the main pages', { concurrency: 3 }, () => {
    for (const [language, locale] of [
      ['en', 'en-GB'],
      ['fr', 'fr-FR'],
      ['de', 'de-DE'],
    ] as const) {
      test(`axe finds nothing on the main pages (${language}, ${WIDTHS.join(' and ')} px)`, async () => {
        const r = await createRequest(t, { reservation_data: { checkin: '2026-12-24', room: 'Suite' } });
        const { context, page, cspErrors } = await signedIn('root', WIDTHS[0], locale);
        const pages = [
          '/control/requests',
          // A search by reference: matched by its start, which the page says.
          `/control/requests?q=${r.reference}`,
          `/control/requests/${r.uuid}`,
          `/control/requests/${r.uuid}/confirm?action=cancel`,
          '/control/requests/new',
          '/control/keys',
          '/control/settings',
          '/control/tenants',
          '/control/users',
          '/control/schedules',
          '/control/audit',
          '/control/books',
        ];
        for (const url of pages) {
          await page.goto(url);
          assert.equal(await page.getAttribute('html', 'lang'), language);
          await atEachWidth(page, async (width) => {
            assert.deepEqual(await axeViolations(page), [], `${url} (${language}, ${width})`);
            // No page wider than the screen: tables scroll inside their own box.
            const wider = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
            assert.ok(wider <= 0, `${url} (${language}, ${width}) is ${wider} px wider than the screen`);
            const name = `${
              url
                .replace(/^\/control\//, '')
                .replace(/[^a-z]+/g, '-')
                .replace(/-$/, '') || 'home'
            }-${language}-${width}.png`;
            await keepScreenshot(page, path.join(SCREENSHOTS, name));
          });
        }
        await page.context().clearCookies();
        await page.goto('/control/sign-in');
        await atEachWidth(page, async (width) => {
          assert.deepEqual(await axeViolations(page), [], `sign-in (${language}, ${width})`);
        });
        assert.deepEqual(cspErrors, []);
        await context.close();
      });
    }
  });
});
