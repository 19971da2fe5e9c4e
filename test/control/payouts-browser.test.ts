// test-engines: pglite. What a browser sees of the Payouts page (accessibility, narrow screens,
// the upload without script) does not depend on the engine; its imports and lists are tested on
// both engines in test/control/payouts.test.ts and test/payouts/. (scripts/test-engines.mjs
// reads this line.)
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { localDate } from '../../src/domain/index.ts';
import { remittancesRepository } from '../../src/payouts/index.ts';
import { atEachWidth, injectAxe, launchChromium, skipWithoutChromium } from '../helpers/browser.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { checkoutForm, submitCard } from '../helpers/sandbox-checkout.ts';
import { createRequest, ENGINE } from '../helpers/test-app.ts';
import { createUser, PASSWORD } from './control-client.ts';

const DAY = 86_400_000;

async function axeViolations(page: Page): Promise<string[]> {
  await injectAxe(page);
  return page.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] }, resultTypes: ['violations'] })
    .then((r) => r.violations.map((v) => v.id + ': ' + v.help + ' @ ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`);
}

describe(`the Payouts page in a real browser (${ENGINE})`, { skip: skipWithoutChromium, timeout: 240_000 }, () => {
  let t: ListeningApp;
  let browser: Browser;
  let report: Buffer;
  let neverPaid = '';
  let address = 0;

  before(async () => {
    t = await startListeningApp({ env: { TRUST_PROXY: 'true' } });
    browser = await launchChromium();
    await createUser(t, 'manager', t.tenant.tenantId, 'manager');
    // A deposit paid on the sandbox today: today's report has it.
    const paid = await createRequest(t, { request_type: 'DEPOSIT', amount: 120, guest_last_name: 'Versé' });
    assert.equal((await submitCard(await checkoutForm(t, paid.uuid), { number: '4242424242424242' })).status, 303);
    // A payment of eight days ago that no report holds: not paid out.
    const old = await createRequest(t, { request_type: 'DEPOSIT', amount: 45, guest_last_name: 'Jamais-Versé' });
    neverPaid = old.reference;
    await t.db.query(
      `INSERT INTO money_ledger (payment_request_id, tenant_id, kind, amount, currency, provider, idempotency_key,
         state, source, legacy_trans_id, created_at)
       VALUES ($1, $2, 'payment', 4500, 'EUR', 'sandbox', $3, 'succeeded', 'ipn', '400001', $4)`,
      [old.uuid, t.tenant.tenantId, `event:${randomUUID()}`, new Date(Date.now() - 8 * DAY)],
    );
    const today = localDate('Europe/Paris', new Date());
    const text = await (
      await fetch(`${t.baseUrl}/sandbox/reports/jrb?tenant=${t.tenant.tenantId}&date=${today}`, {
        headers: t.tenant.headers,
      })
    ).text();
    const records = text.split('\r\n').filter((l) => l !== '');
    const labels = (records[1] ?? '').split(';');
    const first = (records[2] ?? '').split(';');
    // An order payreq does not know, paid ten days ago, as the provider's back office would add.
    const tenDaysAgo = new Date(Date.now() - 10 * DAY).toISOString().slice(0, 10).replaceAll('-', '');
    const unknown = labels.map((label, i) =>
      label === 'ORDER_ID'
        ? 'BO-7781'
        : label === 'TRANSACTION_ID'
          ? '912345'
          : label === 'PAYMENT_DATE'
            ? tenDaysAgo
            : first[i],
    );
    report = Buffer.from(
      `${[...records.slice(0, -1), ['MATCHING', ...unknown.slice(1)].join(';'), `FIN;${records.length - 2}`].join('\r\n')}\r\n`,
    );
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  async function signedIn(width: number, script: boolean) {
    address++;
    const context = await browser.newContext({
      baseURL: t.baseUrl,
      viewport: { width, height: 900 },
      javaScriptEnabled: script,
      extraHTTPHeaders: { 'x-forwarded-for': `203.0.113.${150 + address}` },
    });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto('/control/sign-in');
    await page.getByLabel('Username').fill('manager');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/control/requests');
    return { context, page };
  }

  test('without script: from the menu, the report uploaded, imported, its remittance opened', async () => {
    const { context, page } = await signedIn(375, false);
    // On a phone the navigation is folded behind its Menu button, which opens without script.
    await page.getByText('Menu', { exact: true }).click();
    await page.getByRole('link', { name: 'Payouts' }).click();
    await page.waitForURL('**/control/payouts');
    await page.getByLabel('Report file').setInputFiles({ name: 'jrb.csv', mimeType: 'text/csv', buffer: report });
    await page.getByRole('button', { name: 'Import' }).click();
    await page.waitForURL('**/control/payouts?tenant=*');
    assert.ok(
      await page.getByText('Imported: 1 remittance, 2 lines, 1 matched, 1 unmatched.').isVisible(),
      await page.content(),
    );
    assert.ok(await page.getByRole('link', { name: neverPaid }).isVisible(), 'listed as not paid out');
    await page.getByRole('link', { name: /^Lines of remittance/ }).click();
    await page.waitForURL(/\/control\/payouts\/\d+$/);
    const rows = page.locator('tbody tr');
    assert.match((await rows.first().textContent()) ?? '', /BO-7781/, 'the unmatched line first');
    assert.match((await rows.nth(1).textContent()) ?? '', /Matched: Guest payment/);
    await context.close();
  });

  test('axe-clean at 375 and 1280 px in en, fr and de, nothing wider than the screen', async () => {
    const { context, page } = await signedIn(1280, true);
    const [remittance] = await remittancesRepository(t.db).list(t.tenant.tenantId);
    assert.ok(remittance, 'imported by the test before');
    for (const [language, heading, missing] of [
      ['en', 'Payouts', 'Not paid out'],
      ['fr', 'Versements', 'Non versé'],
      ['de', 'Auszahlungen', 'Nicht ausgezahlt'],
    ] as const) {
      for (const path of ['/control/payouts', `/control/payouts/${remittance.id}`]) {
        await page.goto(`/control/language/${language}?back=${encodeURIComponent(path)}`);
        await page.waitForURL(`**${path}`);
        assert.equal(await page.getAttribute('html', 'lang'), language);
        await atEachWidth(page, async (width) => {
          if (path === '/control/payouts') {
            assert.ok(await page.getByRole('heading', { level: 1, name: heading }).isVisible(), `${language} ${width}`);
            assert.ok(await page.getByRole('heading', { name: missing }).isVisible());
            assert.ok(await page.getByText('€45.00').or(page.getByText('45,00')).first().isVisible(), 'not paid out');
          } else {
            assert.ok(await page.getByText('BO-7781').isVisible());
          }
          assert.deepEqual(await axeViolations(page), [], `${path} ${language} at ${width} px`);
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
          assert.ok(overflow <= 0, `${path} scrolls sideways by ${overflow} px at ${width} px in ${language}`);
        });
      }
    }
    await context.close();
  });

  test('a refused report: said in the page’s language, where the eye is (the first screen), at 375 and 1280 px', async () => {
    const { context, page } = await signedIn(375, true);
    // A report a spreadsheet saved again with commas: no longer the provider's layout.
    const comma = Buffer.from(report.toString().replaceAll(';', ','));
    for (const [language, said] of [
      ['en', /The file is refused and nothing was stored: line 1: a bank reconciliation report starts with/],
      [
        'fr',
        /Le fichier est refusé et rien n’a été enregistré : ligne 1 : un journal de rapprochement bancaire commence/,
      ],
      ['de', /Die Datei wurde abgelehnt, nichts wurde gespeichert: Zeile 1: ein Bankabgleichsbericht beginnt/],
    ] as const) {
      await page.goto(`/control/language/${language}?back=${encodeURIComponent('/control/payouts')}`);
      await page.waitForURL('**/control/payouts');
      for (const width of [375, 1280]) {
        await page.setViewportSize({ width, height: 812 });
        await page.locator('#payouts-file').setInputFiles({ name: 'jrb.csv', mimeType: 'text/csv', buffer: comma });
        await Promise.all([
          page.waitForResponse((r) => r.url().includes('/control/payouts/import') && r.request().method() === 'POST'),
          page.locator('#payouts-file').locator('xpath=ancestor::form').locator('button[type="submit"]').click(),
        ]);
        await page.waitForLoadState();
        const problem = page.locator('#payouts-problem');
        assert.match((await problem.textContent()) ?? '', said, `${language} at ${width} px`);
        const box = await problem.boundingBox();
        assert.ok(box && box.y + box.height <= 812, `on the first screen (${language} at ${width} px): ${box?.y}`);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `scrolls sideways by ${overflow} px (${language} at ${width} px)`);
        assert.deepEqual(await axeViolations(page), [], `axe (${language} at ${width} px)`);
      }
    }
    await context.close();
  });
});
