// test-engines: pglite. What a browser sees (pages, accessibility, the CSP) does not depend on
// the engine; the same flow's HTTP answers and stored rows are tested on both engines by
// failed-guarantee.test.ts. (scripts/test-engines.mjs reads this line.)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { createUser, PASSWORD } from '../control/control-client.ts';
import {
  atEachWidth,
  axeViolations,
  guestContext,
  launchChromium,
  skipWithoutChromium,
  WIDTHS,
} from '../helpers/browser.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { createRequest, ENGINE } from '../helpers/test-app.ts';

const LANGUAGES = [
  [
    'en',
    'en-GB',
    'please register another card',
    'Another card is needed',
    'This card expires too soon',
    'Needs attention: the guarantee failed',
  ],
  [
    'fr',
    'fr-FR',
    'merci d’enregistrer une autre carte',
    'Une autre carte est nécessaire',
    'Cette carte expire trop tôt',
    'À traiter : la garantie a échoué',
  ],
  [
    'de',
    'de-DE',
    'Bitte hinterlegen Sie eine andere Karte',
    'Eine andere Karte wird benötigt',
    'Diese Karte läuft zu früh ab',
    'Zu erledigen: Die Garantie ist fehlgeschlagen',
  ],
] as const;

describe(`a failed guarantee in a real browser: guest pages and the back office (${ENGINE})`, {
  skip: skipWithoutChromium,
  timeout: 300_000,
}, () => {
  let t: ListeningApp;
  let browser: Browser;
  before(async () => {
    t = await startListeningApp({ env: { TRUST_PROXY: 'true' } });
    browser = await launchChromium();
    await createUser(t, 'guarantee-browser', t.tenant.tenantId);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  /** An IMPRINT whose hold the bank refused, as the daily job leaves it. */
  async function failedGuarantee(language: string): Promise<{ uuid: string; reference: string }> {
    const c = await createRequest(t, {
      request_type: 'IMPRINT',
      amount: 150,
      language,
      reservation_data: { checkin: '2026-12-24' },
    });
    await t.db.query(
      `UPDATE payment_requests
          SET status = 'ERROR', guarantee_failed_at = now(), guarantee_failures = 1, guarantee_asks = 1,
              masked_pan = '400000XXXXXX0341', last_hold_error = 'refused: sandbox: the bank refused the hold'
        WHERE id = $1`,
      [c.uuid],
    );
    return c;
  }

  /** A registration refused because the card lapses before its hold, as the IPN leaves it. */
  async function expiringCard(language: string): Promise<string> {
    const c = await createRequest(t, {
      request_type: 'IMPRINT',
      amount: 150,
      language,
      reservation_data: { checkin: '2027-06-24' },
    });
    await t.db.query(
      `WITH p AS (UPDATE payment_requests SET status = 'ERROR' WHERE id = $1 RETURNING id, tenant_id)
       INSERT INTO status_history (payment_request_id, tenant_id, from_status, to_status, source, actor, detail)
       SELECT id, tenant_id, 'PENDING', 'ERROR', 'ipn', 'sandbox', '{"reason": "card_expires_before_hold"}'::jsonb FROM p`,
      [c.uuid],
    );
    return c.uuid;
  }

  // Each page checked at both widths on the same load, resized between.
  for (const [language, locale, askOnForm, anotherCard, tooSoon, attention] of LANGUAGES) {
    test(`axe finds nothing, and the words are there (${language}, ${WIDTHS.join(' and ')} px)`, async () => {
      const failed = await failedGuarantee(language);
      const expiring = await expiringCard(language);
      const viewport = { width: WIDTHS[0], height: 900 };
      const guest = await guestContext(browser, t.baseUrl, { viewport, locale });
      for (const [url, words] of [
        [`/payment/${failed.uuid}/`, askOnForm],
        [`/payment/${failed.uuid}/result/`, anotherCard],
        [`/payment/${expiring}/result/`, tooSoon],
      ] as const) {
        await guest.page.goto(url);
        assert.equal(await guest.page.getAttribute('html', 'lang'), language);
        const body = await guest.page.textContent('body');
        assert.ok(body?.includes(words), `${url}: ${words}`);
        await atEachWidth(guest.page, async (width) => {
          assert.deepEqual(await axeViolations(guest.page), [], `${url} (${language}, ${width})`);
        });
      }
      assert.deepEqual(guest.cspErrors, []);
      await guest.context.close();

      const office = await guestContext(browser, t.baseUrl, { viewport, locale });
      await office.page.goto('/control/');
      await office.page.getByLabel(/Username|Nom d[’']utilisateur|Benutzername/).fill('guarantee-browser');
      await office.page.getByLabel(/Password|Mot de passe|Passwort/).fill(PASSWORD);
      await office.page.getByRole('button', { name: /Sign in|Se connecter|Anmelden/ }).click();
      await office.page.waitForURL('**/control/requests');
      await office.page.goto(`/control/requests/${failed.uuid}`);
      assert.ok((await office.page.textContent('body'))?.includes(attention));
      await atEachWidth(office.page, async (width) => {
        assert.deepEqual(await axeViolations(office.page), [], `detail (${language}, ${width})`);
      });
      await office.page.goto('/control/requests?guarantee=failed');
      assert.ok((await office.page.textContent('body'))?.includes(failed.reference));
      await atEachWidth(office.page, async (width) => {
        assert.deepEqual(await axeViolations(office.page), [], `list (${language}, ${width})`);
        const wider = await office.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(wider <= 0, `the list is ${wider} px wider than the screen (${width} px)`);
      });
      assert.deepEqual(office.cspErrors, []);
      await office.context.close();
    });
  }
});
