// test-engines: pglite. How pages lay out in a browser does not depend on the engine; the rows
// they show are tested on both engines by the HTTP tests beside this one.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import {
  atEachWidth,
  axeViolations,
  keepScreenshot,
  launchChromium,
  skipWithoutChromium,
  WIDTHS,
} from '../helpers/browser.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { checkoutForm, submitCard } from '../helpers/sandbox-checkout.ts';
import { createRequest, ENGINE } from '../helpers/test-app.ts';
import { jrb } from '../payouts/jrb-file.ts';
import { ControlClient, createUser, PASSWORD } from './control-client.ts';

// Pictures for a reviewer (PAYREQ_SCREENSHOTS=1), in the checkout's git-ignored test-results/.
const SCREENSHOTS = fileURLToPath(new URL('../../test-results/control', import.meta.url));

const DAY = 86_400_000;

const LANGUAGES = [
  ['en', 'en-GB', 'Menu', 'Payment requests'],
  ['fr', 'fr-FR', 'Menu', 'Demandes de paiement'],
  ['de', 'de-DE', 'Menü', 'Zahlungsanfragen'],
] as const;

/** What the request's page and its questions say, in each language. */
const SAYS = {
  en: {
    higherRole: /The role Manager could refund the guest\./,
    rest: /€210\.00 freed on the guest’s card/,
    goesTo: 'The payment link goes to',
    problem: /Not an e-mail address the request can keep/,
    corrected: /The guest’s e-mail is now/,
  },
  fr: {
    higherRole: /Le rôle Responsable pourrait rembourser le client\./,
    rest: /210,00\s€ libérés sur la carte du client/,
    goesTo: 'Le lien de paiement part vers',
    problem: /Ce n’est pas une adresse e-mail que la demande peut garder/,
    corrected: /L’e-mail du client est désormais/,
  },
  de: {
    higherRole: /Die Rolle Leitung könnte dem Gast erstatten\./,
    rest: /210,00\s€ werden auf der Karte des Gastes freigegeben/,
    goesTo: 'Der Zahlungslink geht an',
    problem: /Keine E-Mail-Adresse, die die Anfrage behalten kann/,
    corrected: /Die E-Mail des Gastes lautet jetzt/,
  },
} as const;

/** How far the page, and each table's box, reach past their width (0: nothing scrolls sideways). */
function overflows(page: Page): Promise<{ page: number; tables: number[] }> {
  return page.evaluate(() => ({
    page: document.documentElement.scrollWidth - window.innerWidth,
    tables: [...document.querySelectorAll('.table-wrap')].map((w) => w.scrollWidth - w.clientWidth),
  }));
}

async function nothingScrollsSideways(page: Page, where: string, tables = true): Promise<void> {
  const seen = await overflows(page);
  assert.equal(seen.page, 0, `the page scrolls sideways (${where})`);
  if (tables) assert.ok(seen.tables.length > 0, `a table (${where})`);
  assert.ok(
    seen.tables.every((x) => x === 0),
    `a table scrolls sideways in its box (${where}): ${seen.tables}`,
  );
}

/** Whether an element is drawn, and wholly inside the screen's width. */
async function onScreen(page: Page, selector: string, text: string): Promise<boolean> {
  const el = page.locator(selector, { hasText: text }).first();
  if (!(await el.isVisible())) return false;
  const box = await el.boundingBox();
  const width = page.viewportSize()?.width ?? 0;
  return box !== null && box.x >= 0 && box.x + box.width <= width;
}

/**
 * The cells of the page's tables that a phone would show without a name: a body cell with no
 * `data-label`, or one whose label is not drawn (its table outside a `.table-wrap`). Read at
 * 375 px, where the headings are hidden and the label is all a cell has.
 */
function unlabelledCells(page: Page): Promise<{ count: number; unlabelled: string[] }> {
  return page.evaluate(() => {
    const cells = [...document.querySelectorAll('main table tbody td, main table tbody th')];
    const unlabelled = cells
      .filter((c) => {
        const label = c.getAttribute('data-label')?.trim() ?? '';
        const drawn = getComputedStyle(c, '::before').content;
        return label === '' || drawn === 'none' || drawn === 'normal';
      })
      .map((c) => {
        const table = c.closest('table');
        return `${table?.querySelector('caption')?.textContent ?? 'a table'}: "${(c.textContent ?? '').trim().slice(0, 40)}"`;
      });
    return { count: cells.length, unlabelled };
  });
}

/** Addresses that are not pages to look at: they change the session, or answer a file. */
const NOT_A_PAGE = /^\/control\/(language|sign-out|assets)\b|\/export\b|\/download\b|\.csv\b/;

/** The shape of an address, its ids and query values left out: one page per shape is visited. */
function shape(url: string): string {
  const u = new URL(url, 'http://x');
  const keys = [...u.searchParams.keys()].filter((k) => k !== 'tenant').sort();
  return `${u.pathname.replace(/\/[0-9a-f-]{36}|\/\d+|\/[A-Z0-9]{6,}(?=\/|$)/g, '/:id')}?${keys.join('&')}`;
}

/**
 * The back office's pages: the seeds, and those found by following every link of each page, one
 * per shape of address; HTML pages only.
 */
async function crawl(page: Page, seeds: readonly string[]): Promise<string[]> {
  const seen = new Set<string>();
  const pages: string[] = [];
  const queue = [...seeds];
  while (queue.length > 0 && pages.length < 80) {
    const url = queue.shift() as string;
    const key = shape(url);
    // Each seed is visited (two requests' pages show different tables); a found link once per shape.
    if (NOT_A_PAGE.test(url) || pages.includes(url) || (seen.has(key) && !seeds.includes(url))) continue;
    seen.add(key);
    const answer = await page.request.get(url, { maxRedirects: 0 });
    if (answer.status() !== 200 || !(answer.headers()['content-type'] ?? '').startsWith('text/html')) continue;
    pages.push(url);
    await page.goto(url);
    const links = await page
      .locator('a[href^="/control/"]')
      .evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
    queue.push(...links);
  }
  return pages;
}

describe(`the front desk on a phone and a laptop (${ENGINE})`, { skip: skipWithoutChromium, timeout: 300_000 }, () => {
  let t: ListeningApp;
  let browser: Browser;
  let address = 0;

  before(async () => {
    t = await startListeningApp({ env: { TRUST_PROXY: 'true' } });
    browser = await launchChromium();
    mkdirSync(SCREENSHOTS, { recursive: true });
    await createUser(t, 'desk', t.tenant.tenantId, 'frontdesk');
    await createUser(t, 'root');
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  async function signedIn(username: string, locale: string) {
    address++;
    const context = await browser.newContext({
      baseURL: t.baseUrl,
      viewport: { width: WIDTHS[0], height: 900 },
      locale,
      extraHTTPHeaders: { 'x-forwarded-for': `203.0.113.${150 + address}` },
    });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto('/control/sign-in');
    await page.locator('#username').fill(username);
    await page.locator('#password').fill(PASSWORD);
    await page.locator('form[action="/control/sign-in"] button[type="submit"]').click();
    await page.waitForURL('**/control/requests');
    return { context, page };
  }

  describe('in each language', { concurrency: 3 }, () => {
    for (const [language, locale, menu, requests] of LANGUAGES) {
      test(`${language}: the list and the bulk confirmation are cards at 375 px, a table at 1280 px; the menu folds`, async () => {
        // Long names and an address with no place to break: what pushed the columns out.
        const last = `Phonecard${language}`;
        const held: { uuid: string; reference: string }[] = [];
        for (const amount of [1234.56, 40]) {
          const r = await createRequest(t, {
            request_type: 'IMPRINT',
            amount,
            guest_first_name: 'Maximiliane-Françoise',
            guest_last_name: last,
            guest_email: `maximiliane.francoise.${language}.very-long-address@reservations.example.com`,
            reservation_ref: `BOOKING-REFERENCE-${language}-000000123`,
          });
          await arrangeStatus(t.db, r.uuid, 'AUTHORISED_TO_VALIDATE');
          held.push(r);
        }
        const { context, page } = await signedIn('desk', locale);
        await page.goto(`/control/requests?q=${last}`);
        const amounts = [/1[,.\s\u202f]?234[.,]56/, /40[.,]00/];

        await atEachWidth(page, async (width) => {
          const where = `${language} at ${width} px`;
          await nothingScrollsSideways(page, where);
          for (const r of held) {
            const row = page.locator('tbody tr', { hasText: r.reference });
            for (const text of [r.reference, 'Maximiliane-Françoise']) {
              assert.ok(await onScreen(page, `tbody tr:has-text("${r.reference}") td`, text), `${text} (${where})`);
            }
            assert.ok(await row.locator('.status').isVisible(), `the status of ${r.reference} (${where})`);
          }
          for (const amount of amounts) {
            const cell = page.locator('tbody td.num').filter({ hasText: amount });
            assert.ok(await cell.isVisible(), `${amount} visible (${where})`);
            const box = await cell.boundingBox();
            assert.ok(box && box.x + box.width <= width, `${amount} inside the screen (${where})`);
          }
          const navLink = page.getByRole('navigation').getByRole('link', { name: requests, exact: true });
          const menuButton = page.locator('nav.main summary');
          if (width === 375) {
            // One row of the header's height for the navigation, its items behind the button.
            assert.ok(await menuButton.isVisible(), `the menu button (${where})`);
            assert.equal(await menuButton.textContent(), menu);
            assert.equal(await navLink.count(), 0, `the items are folded (${where})`);
            const navHeight = (await page.locator('nav.main').boundingBox())?.height ?? 900;
            assert.ok(navHeight < 60, `the folded navigation is ${navHeight} px high (${where})`);
            // Each row is a card: one column, each cell named by its column's heading.
            const boxes = await page
              .locator('tbody tr')
              .first()
              .locator('td')
              .evaluateAll((cells) =>
                cells.map((c) => {
                  const r = c.getBoundingClientRect();
                  return { left: Math.round(r.left), label: getComputedStyle(c, '::before').content };
                }),
              );
            assert.equal(new Set(boxes.map((b) => b.left)).size, 1, `the cells stack (${where})`);
            assert.ok(
              boxes.some((b) =>
                b.label.includes(language === 'de' ? 'Betrag' : language === 'fr' ? 'Montant' : 'Amount'),
              ),
              `the amount is labelled (${where}): ${JSON.stringify(boxes)}`,
            );
            await menuButton.click();
            assert.ok(await navLink.isVisible(), `the items open under the button (${where})`);
            await menuButton.click();
          } else {
            assert.equal(await menuButton.isVisible(), false, `no menu button (${where})`);
            assert.ok(await navLink.isVisible(), `the navigation is a bar (${where})`);
            assert.ok(await page.locator('thead th').first().isVisible(), `the table keeps its headings (${where})`);
          }
          assert.deepEqual(await axeViolations(page), [], `axe (${where})`);
          await keepScreenshot(page, path.join(SCREENSHOTS, `phone-requests-${language}-${width}.png`));
        });

        // The bulk confirmation: the very amounts being confirmed, whole, at both widths.
        await page.setViewportSize({ width: WIDTHS[0], height: 900 });
        for (const r of held) await page.locator(`input[name="ids"][value="${r.uuid}"]`).check();
        await page.locator('button[name="action"][value="capture"]').click();
        await page.waitForURL('**/control/bulk');
        await atEachWidth(page, async (width) => {
          const where = `bulk confirmation, ${language} at ${width} px`;
          await nothingScrollsSideways(page, where);
          for (const amount of amounts) {
            const cell = page.locator('tbody td.num').filter({ hasText: amount });
            assert.ok(await cell.isVisible(), `${amount} visible (${where})`);
            const box = await cell.boundingBox();
            assert.ok(box && box.x >= 0 && box.x + box.width <= width, `${amount} inside the screen (${where})`);
          }
          for (const r of held) assert.ok(await onScreen(page, 'tbody td', r.reference), `${r.reference} (${where})`);
          if (width === 375)
            assert.deepEqual((await unlabelledCells(page)).unlabelled, [], `unlabelled cells (${where})`);
          assert.deepEqual(await axeViolations(page), [], `axe (${where})`);
          await keepScreenshot(page, path.join(SCREENSHOTS, `phone-bulk-${language}-${width}.png`));
        });
        await context.close();
      });

      test(`${language}: a request's page and its questions at 375 and 1280 px: who could act, the rest of a hold, the address first`, async () => {
        const says = SAYS[language];
        const paid = await createRequest(t, { request_type: 'DEPOSIT', amount: 120 });
        await arrangeStatus(t.db, paid.uuid, 'CAPTURED', { amountCaptured: 12_000 });
        const held = await createRequest(t, { request_type: 'IMPRINT', amount: 250, guest_last_name: 'Holder' });
        await arrangeStatus(t.db, held.uuid, 'AUTHORISED_TO_VALIDATE');
        const typo = `guest.${language}@exmaple.com`;
        const unpaid = await createRequest(t, { request_type: 'DEPOSIT', amount: 80, guest_email: typo });
        const { context, page } = await signedIn('desk', locale);
        const readable = async (where: string, text: RegExp | string) => {
          await nothingScrollsSideways(page, where, false);
          const el = page.locator('main').getByText(text).first();
          assert.ok(await el.isVisible(), `${text} (${where})`);
          const box = await el.boundingBox();
          const width = page.viewportSize()?.width ?? 0;
          assert.ok(box && box.x >= 0 && box.x + box.width <= width, `${text} inside the screen (${where})`);
          assert.deepEqual(await axeViolations(page), [], `axe (${where})`);
        };
        await page.goto(`/control/requests/${paid.uuid}`);
        await atEachWidth(page, (width) => readable(`captured deposit, ${language} at ${width} px`, says.higherRole));
        await page.goto(`/control/requests/${held.uuid}/confirm?action=capture&amount=40`);
        await atEachWidth(page, async (width) => {
          await readable(`partial capture, ${language} at ${width} px`, says.rest);
          await keepScreenshot(page, path.join(SCREENSHOTS, `phone-partial-capture-${language}-${width}.png`));
        });
        await page.goto(`/control/requests/${unpaid.uuid}/confirm?action=resend`);
        await atEachWidth(page, async (width) => {
          const where = `resend, ${language} at ${width} px`;
          await readable(where, `${says.goesTo} ${typo}.`);
          const first = await page.locator('main section p').first().textContent();
          assert.equal(first, `${says.goesTo} ${typo}.`, `the address first (${where})`);
        });
        // Without the form's own check (a browser's type="email"), the service's: beside the field.
        await page.locator('#guest-email').evaluate((el) => el.setAttribute('type', 'text'));
        await page.locator('#guest-email').fill('guest@');
        await page.locator('main form button[type="submit"]').click();
        await atEachWidth(page, (width) => readable(`refused address, ${language} at ${width} px`, says.problem));
        assert.equal(await page.locator('#guest-email').getAttribute('aria-invalid'), 'true');
        await page.locator('#guest-email').fill(`guest.${language}@example.com`);
        await page.locator('main form button[type="submit"]').click();
        await page.waitForURL(`**/control/requests/${unpaid.uuid}`);
        await atEachWidth(page, (width) => readable(`corrected, ${language} at ${width} px`, says.corrected));
        await context.close();
      });
    }
  });

  test('every page with a table, in en, fr and de: at 375 px each cell is labelled, nothing scrolls sideways', async () => {
    // Data in every table worth a row: money moved and paid out (a remittance and its lines),
    // a hold, a webhook endpoint, API keys, people, sessions, audit lines.
    const paid = await createRequest(t, { request_type: 'DEPOSIT', amount: 120, guest_last_name: 'Wide' });
    assert.equal((await submitCard(await checkoutForm(t, paid.uuid), { number: '4242424242424242' })).status, 303);
    const held = await createRequest(t, { request_type: 'IMPRINT', amount: 250, guest_last_name: 'Held' });
    await arrangeStatus(t.db, held.uuid, 'AUTHORISED_TO_VALIDATE');
    const late = await createRequest(t, { request_type: 'DEPOSIT', amount: 50, guest_last_name: 'Late' });
    await t.db.query(
      `INSERT INTO money_ledger (payment_request_id, tenant_id, kind, amount, currency, provider, idempotency_key,
         state, source, legacy_trans_id, created_at)
       VALUES ($1, $2, 'payment', 5000, 'EUR', 'sandbox', $3, 'succeeded', 'ipn', '482916', $4)`,
      [late.uuid, t.tenant.tenantId, `event:${randomUUID()}`, new Date(Date.now() - 9 * DAY)],
    );
    const root = await new ControlClient(t).signedIn('root');
    await root.get(`/control/payouts?tenant=${t.tenant.tenantId}`);
    const imported = await root.postMultipart(
      `/control/payouts/import?tenant=${t.tenant.tenantId}`,
      { tenant: t.tenant.tenantId },
      {
        report: {
          name: 'jrb.csv',
          type: 'text/csv',
          bytes: jrb([
            { orderId: late.uuid, transactionId: '482916', type: 'DT', amount: 5_000, commission: 95 },
            { orderId: 'BO-2026-7', transactionId: '700001', type: 'DT', amount: 12_500, commission: 246 },
          ]),
        },
      },
    );
    assert.equal(imported.statusCode, 303, imported.body);
    await root.get(`/control/webhooks?tenant=${t.tenant.tenantId}`);
    const endpoint = await root.post('/control/webhooks', {
      tenant: t.tenant.tenantId,
      url: 'https://pms.example.com/payreq-events',
    });
    assert.ok(endpoint.statusCode < 400, endpoint.body);

    const { context, page } = await signedIn('root', 'en-GB');
    // Seeds the links cannot reach (a hotel chosen in the query); every other page is found by
    // following the links of the pages seen, one page per shape of address: a page added to the
    // back office is checked without being listed here.
    const seeds = [
      '/control/requests',
      `/control/requests/${paid.uuid}`,
      `/control/requests/${held.uuid}`,
      `/control/today?tenant=${t.tenant.tenantId}`,
      `/control/payouts?tenant=${t.tenant.tenantId}`,
      `/control/webhooks?tenant=${t.tenant.tenantId}`,
      `/control/team?tenant=${t.tenant.tenantId}`,
      `/control/keys?tenant=${t.tenant.tenantId}`,
    ];
    const pages = await crawl(page, seeds);
    const checked = new Map<string, number>();
    for (const [language] of LANGUAGES) {
      await page.goto(`/control/language/${language}?back=/control/requests`);
      for (const url of pages) {
        await page.goto(url);
        await atEachWidth(
          page,
          async (width) => {
            const where = `${url} (${language}, ${width} px)`;
            const seen = await overflows(page);
            assert.equal(seen.page, 0, `${where}: the page scrolls sideways`);
            assert.ok(
              seen.tables.every((x) => x === 0),
              `${where}: a table scrolls sideways in its box: ${seen.tables}`,
            );
            if (width !== 375) return;
            const cells = await unlabelledCells(page);
            assert.deepEqual(cells.unlabelled, [], `${where}: cells without a label`);
            checked.set(url, (checked.get(url) ?? 0) + cells.count);
          },
          [1280, 375],
        );
        const name = url
          .replace(/^\/control\//, '')
          .replace(/\?.*$/, '')
          .replace(/[^a-z]+/g, '-');
        await keepScreenshot(page, path.join(SCREENSHOTS, `phone-${name}-${language}.png`));
      }
    }
    // The test saw the tables it is about: the remittances, a remittance's lines, a request's money.
    const remittance = pages.find((u) => /^\/control\/payouts\/\d+/.test(u));
    assert.ok(remittance, `a remittance's page was found: ${pages.join(' ')}`);
    for (const url of [`/control/payouts?tenant=${t.tenant.tenantId}`, remittance, `/control/requests/${paid.uuid}`]) {
      assert.ok((checked.get(url) ?? 0) > 0, `${url}: cells checked`);
    }
    await context.close();
  });
});
