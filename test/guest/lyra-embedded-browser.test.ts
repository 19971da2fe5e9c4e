// test-engines: pglite. What a browser sees (pages, accessibility, the CSP, forms without
// JavaScript) does not depend on the engine; the same flows' HTTP answers and stored rows are
// tested on both engines by the files beside this one. (scripts/test-engines.mjs reads this line.)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { LYRA_CARDS } from '../fakes/lyra/fake-store.ts';
import { giveLyraAccount } from '../fakes/lyra/give-account.ts';
import { type LyraFake, startLyraFake } from '../fakes/lyra/lyra-fake.ts';
import { axeViolations, guestContext, launchChromium, skipWithoutChromium } from '../helpers/browser.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { eventually } from '../helpers/sandbox-checkout.ts';
import { auditResponses, createRequest, ENGINE } from '../helpers/test-app.ts';

const skip = skipWithoutChromium;

/**
 * A Lyra tenant's guest pays from payreq's own page: the page loads Lyra's script (the fake's,
 * which draws the card form in a frame of its own origin), the guest types the card there,
 * Lyra notifies payreq, then sends the browser back to payreq's result page with its signed
 * answer. Every request the browser makes to payreq is recorded: none carries the card number.
 */
describe(`Lyra's embedded form on the guest page, in a real browser (${ENGINE})`, { skip, timeout: 300_000 }, () => {
  let t: ListeningApp;
  let fake: LyraFake;
  let browser: Browser;

  before(async () => {
    fake = await startLyraFake();
    // TRUST_PROXY: each browser context is its own guest address for the pages' rate limit.
    t = await startListeningApp({ env: { TRUST_PROXY: 'true' } });
    await giveLyraAccount(t, t.tenant.tenantId, fake);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    if (t) {
      auditResponses(t);
      await t.close();
    }
    await fake?.close();
  });

  const detail = async (uuid: string) =>
    (await t.call({ method: 'GET', url: `/api/payment-requests/${uuid}/` })).json() as Record<string, unknown>;

  /** What the browser sent payreq's origin: method, URL and body of each request. */
  function recordToPayreq(page: Page): string[] {
    const seen: string[] = [];
    page.on('request', (r) => {
      if (r.url().startsWith(t.baseUrl)) seen.push(`${r.method()} ${r.url()} ${r.postData() ?? ''}`);
    });
    return seen;
  }

  const cases = [
    { type: 'DEPOSIT', language: 'en', amount: 120.5, status: 'CAPTURED', title: 'Payment received', captured: 120.5 },
    { type: 'IMPRINT', language: 'fr', amount: 150, status: 'AUTHORISED', title: 'Carte enregistrée', captured: 0 },
  ] as const;
  for (const c of cases) {
    test(`${c.type}: the guest pays on Lyra's form inside payreq's page; ${c.status}, and no card number reached payreq`, async () => {
      const { context, page, cspErrors } = await guestContext(browser, t.baseUrl);
      try {
        const seen = recordToPayreq(page);
        const created = await createRequest(t, { request_type: c.type, language: c.language, amount: c.amount });
        const response = await page.goto(created.payment_link);
        assert.equal(response?.status(), 200);
        const csp = String(response?.headers()['content-security-policy']);
        const lyraOrigin = new URL(fake.staticUrl).origin;
        assert.match(csp, new RegExp(`script-src ${lyraOrigin}(;|$)`), csp);
        assert.match(csp, new RegExp(`frame-src ${lyraOrigin}(;|$)`), csp);
        assert.equal(await page.locator('script[kr-public-key]').count(), 1, "Lyra's script is on the page");
        assert.deepEqual(await axeViolations(page), [], 'the page with the form drawn is accessible');

        const card = page.frameLocator('iframe[name="kr-fake-card-form"]');
        await card.getByLabel('Card number').fill(LYRA_CARDS.accepted);
        await Promise.all([
          page.waitForURL(`${t.baseUrl}/payment/${created.uuid}/result/`, { timeout: 30_000 }),
          card.getByRole('button', { name: 'Pay' }).click(),
        ]);
        await page.locator('h1', { hasText: c.title }).waitFor({ timeout: 15_000 });

        const d = await eventually(
          async () => ((await detail(created.uuid)).status === c.status ? detail(created.uuid) : undefined),
          `${c.type} ${c.status}`,
        );
        assert.equal(d.amount_captured, c.captured);
        assert.equal(d.masked_pan, '497010XXXXXX0055');
        assert.equal(fake.deliveries.at(-1)?.delivered, true, 'Lyra notified payreq before the browser came back');

        // The browser came back to payreq with Lyra's signed answer (verified, never applied)...
        const back = seen.find((s) => s.startsWith(`POST ${t.baseUrl}/payment/${created.uuid}/result/`));
        assert.ok(back?.includes('kr-hash='), `the signed browser return: ${seen.join('\n')}`);
        // ...and nothing the browser sent payreq carried the card number.
        assert.equal(
          seen.some((s) => s.includes(LYRA_CARDS.accepted)),
          false,
        );
        assert.deepEqual(cspErrors, [], 'nothing was blocked by the CSP');
      } finally {
        await context.close();
      }
    });
  }

  test('without JavaScript, or with Lyra blocked: no form can be drawn, and the page says plainly what to do', async () => {
    const { context, page } = await guestContext(browser, t.baseUrl, { javaScriptEnabled: false });
    try {
      const created = await createRequest(t, { request_type: 'DEPOSIT', language: 'de', amount: 80 });
      await page.goto(created.payment_link);
      await page.getByText('blockiert dieser Browser JavaScript').waitFor();
      assert.equal(await page.locator('iframe').count(), 0);
      assert.equal((await detail(created.uuid)).status, 'PENDING');
    } finally {
      await context.close();
    }
    // Script on, but Lyra's host unreachable (a blocker, a proxy): the same words stay.
    const blocked = await guestContext(browser, t.baseUrl);
    try {
      await blocked.context.route(`${new URL(fake.staticUrl).origin}/**`, (route) => route.abort());
      const created = await createRequest(t, { request_type: 'IMPRINT', language: 'en' });
      await blocked.page.goto(created.payment_link);
      await blocked.page.getByText('If it does not, this browser is blocking JavaScript').waitFor();
      assert.equal(await blocked.page.locator('iframe').count(), 0);
    } finally {
      await blocked.context.close();
    }
  });

  test('once drawn, the form takes the place of the words', async () => {
    const { context, page } = await guestContext(browser, t.baseUrl);
    try {
      const created = await createRequest(t, { request_type: 'IMPRINT', language: 'en' });
      await page.goto(created.payment_link);
      await page.locator('iframe[name="kr-fake-card-form"]').waitFor();
      assert.equal(await page.getByText('this browser is blocking JavaScript').count(), 0);
    } finally {
      await context.close();
    }
  });
});
