// test-engines: pglite. What a browser sees of the Apaleo sections (accessibility, narrow
// screens) does not depend on the engine; their contents are tested on both engines in
// test/pms/apaleo-back-office.test.ts. (scripts/test-engines.mjs reads this line.)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { runCommand } from '../../src/cli/index.ts';
import { createUser, PASSWORD } from '../control/control-client.ts';
import { type ApaleoFake, startApaleoFake } from '../fakes/apaleo/apaleo-fake.ts';
import { atEachWidth, injectAxe, launchChromium, skipWithoutChromium } from '../helpers/browser.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { checkoutForm, eventually, submitCard } from '../helpers/sandbox-checkout.ts';
import { createRequest, ENGINE } from '../helpers/test-app.ts';

async function axeViolations(page: Page): Promise<string[]> {
  await injectAxe(page);
  return page.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] }, resultTypes: ['violations'] })
    .then((r) => r.violations.map((v) => v.id + ': ' + v.help + ' @ ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`);
}

describe(`the Apaleo sections in a real browser (${ENGINE})`, { skip: skipWithoutChromium, timeout: 240_000 }, () => {
  let t: ListeningApp;
  let apaleo: ApaleoFake;
  let browser: Browser;
  let refused = '';

  before(async () => {
    apaleo = await startApaleoFake();
    apaleo.store.addClient('APP', 'secret');
    apaleo.store.addProperty('MUC', 'Hotel München');
    apaleo.store.addReservation({ id: 'RES-1', propertyId: 'MUC' });
    const folio = apaleo.store.mainFolio('RES-1');
    if (folio) folio.status = 'Closed';
    t = await startListeningApp({ env: { TRUST_PROXY: 'true', WORKERS: 'on' } });
    const connected = await runCommand(
      [
        'tenant',
        'set-pms',
        '--tenant',
        t.tenant.tenantId,
        '--pms',
        'apaleo',
        '--property-id',
        'MUC',
        '--api-url',
        apaleo.url,
        '--identity-url',
        apaleo.url,
        '--secrets-stdin',
      ],
      { config: t.config, db: t.db, repos: t.repos, app: t.app.payreq },
      undefined,
      JSON.stringify({ client_id: 'APP', client_secret: 'secret' }),
    );
    assert.equal(connected.exitCode, 0, connected.stderr);
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 99, reservation_ref: 'RES-1' });
    await submitCard(await checkoutForm(t, c.uuid), { number: '4242424242424242' });
    await eventually(
      async () => {
        const r = await t.db.query(`SELECT 1 FROM pms_postings WHERE state = 'failed'`);
        return r.rows.length ? true : undefined;
      },
      'the refused posting',
      30_000,
    );
    refused = c.uuid;
    await createUser(t, 'manager', t.tenant.tenantId, 'manager');
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await apaleo?.close();
  });

  test('settings, the request, Today and the new request: axe-clean at 375 and 1280 px in en, fr and de', async () => {
    const context = await browser.newContext({
      baseURL: t.baseUrl,
      viewport: { width: 1280, height: 900 },
      extraHTTPHeaders: { 'x-forwarded-for': '203.0.113.77' },
    });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto('/control/sign-in');
    await page.getByLabel('Username').fill('manager');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/control/requests');
    const pages: [string, Record<string, string>][] = [
      [
        '/control/settings',
        { en: 'Connected to property MUC', fr: 'Connecté à l’établissement MUC', de: 'Verbunden mit Betrieb MUC' },
      ],
      [
        `/control/requests/${refused}`,
        { en: 'refused by Apaleo', fr: 'refusé par Apaleo', de: 'von Apaleo abgelehnt' },
      ],
      ['/control/today', { en: 'Not posted to Apaleo', fr: 'Non inscrits dans Apaleo', de: 'Nicht in Apaleo gebucht' }],
      [
        '/control/requests/new',
        {
          en: 'From an Apaleo reservation',
          fr: 'À partir d’une réservation Apaleo',
          de: 'Aus einer Apaleo-Reservierung',
        },
      ],
    ];
    for (const language of ['en', 'fr', 'de'] as const) {
      for (const [url, words] of pages) {
        await page.goto(`/control/language/${language}?back=${encodeURIComponent(url)}`);
        await page.waitForURL(`**${url}`);
        await atEachWidth(page, async (width) => {
          assert.ok(
            await page
              .getByText(words[language] ?? '')
              .first()
              .isVisible(),
            `${url} ${language} at ${width} px`,
          );
          assert.deepEqual(await axeViolations(page), [], `${url} in ${language} at ${width} px`);
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
          assert.ok(overflow <= 0, `${url} scrolls sideways by ${overflow} px at ${width} px in ${language}`);
        });
      }
    }
    await context.close();
  });
});
