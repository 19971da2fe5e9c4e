// test-engines: pglite. What a browser sees of the Today page (accessibility, narrow screens,
// no script) does not depend on the engine; its lists are tested on both engines in
// test/day-plan/digest.test.ts. (scripts/test-engines.mjs reads this line.)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { digestPayload } from '../../src/day-plan/index.ts';
import { emailOutboxRepository } from '../../src/db/index.ts';
import { addDays, type Language, localDate } from '../../src/domain/index.ts';
import { emailSubjects, renderDailyDigest, renderPaymentLink } from '../../src/mail/index.ts';
import { remittancesRepository } from '../../src/payouts/index.ts';
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

describe(`the Today page in a real browser (${ENGINE})`, { skip: skipWithoutChromium, timeout: 180_000 }, () => {
  let t: ListeningApp;
  let browser: Browser;
  let address = 0;

  before(async () => {
    t = await startListeningApp({ env: { TRUST_PROXY: 'true' } });
    browser = await launchChromium();
    await createUser(t, 'desk', t.tenant.tenantId);
    await createUser(t, 'root');
    const today = localDate('Europe/Paris', new Date());
    const arriving = await createRequest(t, {
      request_type: 'IMPRINT',
      guest_last_name: 'Arrivée-Aujourd’hui',
      reservation_data: { checkin: today, checkout: addDays(today, 3) },
    });
    await arrangeStatus(t.db, arriving.uuid, 'AUTHORISED_TO_VALIDATE');
    await t.db.query("UPDATE payment_requests SET hold_expires_at = now() + interval '3 hours' WHERE id = $1", [
      arriving.uuid,
    ]);
    await createRequest(t, {
      request_type: 'DEPOSIT',
      guest_last_name: 'Demain',
      reservation_data: { checkin: addDays(today, 1), checkout: addDays(today, 2) },
    });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  async function signedIn(username: string, width: number, script: boolean) {
    address++;
    const context = await browser.newContext({
      baseURL: t.baseUrl,
      viewport: { width, height: 900 },
      javaScriptEnabled: script,
      extraHTTPHeaders: { 'x-forwarded-for': `203.0.113.${100 + address}` },
    });
    const page = await context.newPage();
    // A step that cannot happen fails in seconds, naming itself, rather than at the file's timeout.
    page.setDefaultTimeout(15_000);
    await page.goto('/control/sign-in');
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/control/requests');
    return { context, page };
  }

  test('first in the nav; axe-clean at 375 and 1280 px in en, fr and de, nothing wider than the screen', async () => {
    // axe runs as script in the page: this context has it; the next test has none. Each page is
    // checked at both widths on the same load, resized between.
    const { context, page } = await signedIn('desk', WIDTHS[0], true);
    const first = page.locator('nav.main li').first();
    assert.equal(await first.textContent(), 'Today');
    await first.getByRole('link').click();
    await page.waitForURL('**/control/today');
    for (const [language, heading] of [
      ['en', 'Holds about to lapse'],
      ['fr', 'Empreintes sur le point d’expirer'],
      ['de', 'Bald ablaufende Vorautorisierungen'],
    ] as const) {
      await page.goto(`/control/language/${language}?back=/control/today`);
      await page.waitForURL('**/control/today');
      assert.equal(await page.getAttribute('html', 'lang'), language);
      await atEachWidth(page, async (width) => {
        assert.ok(
          await page.getByRole('heading', { name: heading }).isVisible(),
          `${language} ${heading} at ${width} px`,
        );
        assert.ok(await page.getByText('Arrivée-Aujourd’hui').first().isVisible());
        assert.deepEqual(await axeViolations(page), [], `${language} at ${width} px`);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px at ${width} px in ${language}`);
      });
    }
    // The settings page's new group too, and the superuser's hotel chooser on Today.
    await page.goto('/control/language/en?back=/control/settings');
    await atEachWidth(page, async (width) => {
      assert.ok(await page.getByRole('group', { name: 'Reminders and digest' }).isVisible());
      assert.deepEqual(await axeViolations(page), [], `settings at ${width} px`);
    });
    await context.close();
    const root = await signedIn('root', 375, true);
    await root.page.goto('/control/today');
    assert.ok(await root.page.getByLabel('Hotel').isVisible());
    assert.deepEqual(await axeViolations(root.page), []);
    await root.context.close();
  });

  test('the digest and the reminder e-mails are axe-clean at 375 and 1280 px in en, fr and de', async () => {
    const tenant = await t.repos.tenants.find(t.tenant.tenantId);
    assert.ok(tenant);
    const payload = await digestPayload({ ...t.repos, remittances: remittancesRepository(t.db) }, tenant, new Date(), {
      inDoubtGraceSeconds: 120,
    });
    assert.ok(payload.plan.arrivalsToday.length > 0 && payload.plan.lapsingHolds.length > 0, 'lists to show');
    const unpaid = await createRequest(t, { request_type: 'DEPOSIT', guest_email: 'mail.axe@example.com' });
    const subject = (await emailSubjects(emailOutboxRepository(t.db), [unpaid.uuid])).get(unpaid.uuid);
    assert.ok(subject);
    const context = await browser.newContext();
    const page = await context.newPage();
    for (const language of ['en', 'fr', 'de'] as Language[]) {
      // Through JSON, as the outbox stores the digest's content.
      const digest = renderDailyDigest(
        JSON.parse(JSON.stringify(payload)),
        { ...tenant, contact_email: 'desk@example.com', digest_language: language },
        t.baseUrl,
      );
      const reminder = renderPaymentLink({ ...subject, language }, tenant.name, t.baseUrl, {
        number: 1,
        linkExpiresAt: new Date(),
      });
      for (const width of [375, 1280]) {
        await page.setViewportSize({ width, height: 900 });
        for (const [name, mail] of [
          ['digest', digest],
          ['reminder', reminder],
        ] as const) {
          await page.setContent(mail.html);
          assert.equal(await page.getAttribute('html', 'lang'), language);
          assert.deepEqual(await axeViolations(page), [], `${name} ${language} at ${width} px`);
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
          assert.ok(overflow <= 0, `${name} ${language} scrolls sideways at ${width} px`);
        }
      }
    }
    await context.close();
  });

  test('without script: the page from the nav, and the settings form turns reminders and the digest on', async () => {
    const { context, page } = await signedIn('desk', 375, false);
    // On a phone the navigation is folded behind its Menu button, which opens without script.
    await page.getByText('Menu', { exact: true }).click();
    await page.getByRole('link', { name: 'Today' }).click();
    await page.waitForURL('**/control/today');
    assert.ok(await page.getByRole('heading', { name: 'Failed guarantees' }).isVisible());
    assert.ok(await page.getByText('Arrivée-Aujourd’hui').first().isVisible());
    await page.goto('/control/settings');
    await page.getByLabel('Remind guests of unpaid payment links').check();
    await page.getByLabel('E-mail the hotel a daily digest').check();
    await page.getByLabel('Digest hour (0 to 23, hotel time)').fill('6');
    await page.getByLabel('Digest language').selectOption('de');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL('**/control/settings**');
    const tenant = await t.repos.tenants.find(t.tenant.tenantId);
    assert.equal(tenant?.reminders, true);
    assert.equal(tenant?.digest_email, true);
    assert.equal(tenant?.digest_hour, 6);
    assert.equal(tenant?.digest_language, 'de');
    await context.close();
  });
});
