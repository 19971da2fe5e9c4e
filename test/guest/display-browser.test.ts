// test-engines: pglite. What a browser sees (pages, accessibility, the CSP, forms without
// JavaScript) does not depend on the engine; the same flows' HTTP answers and stored rows are
// tested on both engines by the files beside this one. (scripts/test-engines.mjs reads this line.)
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import type { Language } from '../../src/domain/index.ts';
import { setTenantLogo, updateTenantSettings } from '../../src/tenants/index.ts';
import {
  axeViolations,
  keepScreenshot,
  launchChromium,
  guestContext as newGuestContext,
  skipWithoutChromium,
} from '../helpers/browser.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { makePng } from '../helpers/images.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { auditResponses, createRequest, ENGINE } from '../helpers/test-app.ts';

const LANGUAGES: Language[] = ['fr', 'en', 'de'];
const WIDTHS = [1280, 375] as const;
// The checkout's own test-results/ (git-ignored).
const SCREENSHOTS = fileURLToPath(new URL('../../test-results/guest-display', import.meta.url));

describe(`the hotel's guest pages in a real browser: screenshots, axe, accent, logo (${ENGINE})`, {
  skip: skipWithoutChromium,
  timeout: 600_000,
}, () => {
  let t: ListeningApp;
  let browser: Browser;

  before(async () => {
    t = await startListeningApp({ env: { TRUST_PROXY: 'true' } });
    await updateTenantSettings(t.repos, t.tenant.tenantId, {
      name: 'Hôtel du Lac & Spa',
      address: '12 rue du Lac\n74000 Annecy',
      phone: '+33 4 50 00 00 00',
      contact_email: 'reception@hotel-du-lac.example',
      terms_url: 'https://hotel-du-lac.example/conditions',
      accent_color: '#1f4e79',
    });
    await setTenantLogo(t.repos, t.tenant.tenantId, makePng(120, 40));
    browser = await launchChromium();
    mkdirSync(SCREENSHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    if (t) {
      auditResponses(t);
      await t.close();
    }
  });

  // One browser context, its own requests and address per language: the three run side by side.
  describe('each language', { concurrency: LANGUAGES.length }, () => {
    for (const language of LANGUAGES) {
      test(`${language}: payment page, paid receipt, registered card and refusal at 1280 and 375 px: axe-clean, accent and logo applied under the CSP`, async () => {
        const deposit = await createRequest(t, { language, request_type: 'DEPOSIT', amount: 80 });
        const paid = await createRequest(t, { language, request_type: 'DEPOSIT', amount: 80 });
        await arrangeStatus(t.db, paid.uuid, 'CAPTURED', { amountCaptured: 8000 });
        const registered = await createRequest(t, { language, request_type: 'IMPRINT', amount: 150 });
        await arrangeStatus(t.db, registered.uuid, 'AUTHORISED');
        const refused = await createRequest(t, { language, request_type: 'IMPRINT' });
        await arrangeStatus(t.db, refused.uuid, 'REFUSED');
        for (const id of [paid.uuid, registered.uuid]) {
          await t.db.query(
            `UPDATE payment_requests SET masked_pan = '497010XXXXXX0055', card_expiry_month = 3, card_expiry_year = 2031 WHERE id = $1`,
            [id],
          );
          await t.db.query(
            `INSERT INTO status_history (payment_request_id, tenant_id, from_status, to_status, source)
           SELECT id, tenant_id, 'PENDING', status, 'ipn' FROM payment_requests WHERE id = $1`,
            [id],
          );
        }
        const pages = [
          { name: 'payment', url: deposit.payment_link },
          { name: 'paid', url: `${paid.payment_link}result/` },
          { name: 'registered', url: `${registered.payment_link}result/` },
          { name: 'refused', url: `${refused.payment_link}result/` },
        ];
        for (const width of WIDTHS) {
          const { context, page, cspErrors } = await newGuestContext(browser, t.baseUrl, {
            viewport: { width, height: width === 375 ? 667 : 900 },
            ...(width === 375 ? { deviceScaleFactor: 2, isMobile: true, hasTouch: true } : {}),
          });
          try {
            for (const p of pages) {
              const response = await page.goto(p.url);
              assert.equal(response?.status(), 200, p.url);
              assert.equal(await page.getAttribute('html', 'lang'), language);
              // The accent's own stylesheet applied: the header band is the hotel's colour.
              const band = await page.evaluate(
                'getComputedStyle(document.querySelector("header.site")).backgroundColor',
              );
              assert.equal(band, 'rgb(31, 78, 121)', `${p.name}: accent`);
              const logo = (await page.evaluate(
                '(() => { const i = document.querySelector("img.logo"); return i && i.complete ? i.naturalWidth : 0; })()',
              )) as number;
              assert.equal(logo, 120, `${p.name}: the logo loaded`);
              assert.ok(await page.locator('footer.hotel-info a[href^="tel:"]').isVisible(), 'the phone is there');
              assert.ok(await page.locator('.test-mode').isVisible(), `${p.name}: TEST MODE`);
              const violations = await axeViolations(page);
              assert.deepEqual(
                violations,
                [],
                `${language} ${p.name} ${width}: ${JSON.stringify(violations, null, 2)}`,
              );
              if (width === 375) {
                const widths = (await page.evaluate(
                  '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })',
                )) as { scroll: number; client: number };
                assert.ok(widths.scroll <= widths.client, `${p.name}: horizontal scroll ${JSON.stringify(widths)}`);
              }
              const shot = path.join(SCREENSHOTS, `${p.name}-${language}-${width}.png`);
              await keepScreenshot(page, shot);
            }
            assert.deepEqual(cspErrors, [], 'nothing was blocked by the CSP');
          } finally {
            await context.close();
          }
        }
      });
    }
  });
});
