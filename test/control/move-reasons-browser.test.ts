import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { csvObjects } from '../exports/csv-parse.ts';
import { atEachWidth, axeViolations, keepScreenshot, launchChromium, skipWithoutChromium } from '../helpers/browser.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { createRequest, ENGINE } from '../helpers/test-app.ts';
import { ControlClient, createUser, PASSWORD } from './control-client.ts';

/** What each language calls the pieces the test uses (the reason words are the catalogue's). */
const LANGUAGES = [
  {
    language: 'en',
    locale: 'en-GB',
    reason: 'Reason',
    note: 'Note (optional)',
    noShow: 'No-show',
    goodwill: 'Goodwill gesture',
    because: 'Reason:',
    confirm: 'Confirm',
    given: 'Reason given',
  },
  {
    language: 'fr',
    locale: 'fr-FR',
    reason: 'Motif',
    note: 'Note (facultative)',
    noShow: 'Non-présentation',
    goodwill: 'Geste commercial',
    because: 'Motif :',
    confirm: 'Confirmer',
    given: 'Motif indiqué',
  },
  {
    language: 'de',
    locale: 'de-DE',
    reason: 'Grund',
    note: 'Notiz (optional)',
    noShow: 'Nichterscheinen (No-Show)',
    goodwill: 'Kulanz',
    because: 'Grund:',
    confirm: 'Bestätigen',
    given: 'Angegebener Grund',
  },
] as const;

// The front desk gives the reason of a capture or a refund in the request's page, sees it on the
// confirmation, then in the history, the audit and the ledger export, in its own language.
describe(`capture and refund reasons in the back office (${ENGINE})`, {
  skip: skipWithoutChromium,
  timeout: 240_000,
}, () => {
  let t: ListeningApp;
  let browser: Browser;
  let address = 0;
  before(async () => {
    t = await startListeningApp({ env: { TRUST_PROXY: 'true' } });
    browser = await launchChromium();
    await createUser(t, 'desk-reasons', t.tenant.tenantId);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  async function signedIn(locale: string) {
    address++;
    const context = await browser.newContext({
      baseURL: t.baseUrl,
      viewport: { width: 1280, height: 900 },
      locale,
      extraHTTPHeaders: { 'x-forwarded-for': `203.0.113.${180 + address}` },
    });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto('/control/');
    await page.getByLabel(/Username|Nom d[’']utilisateur|Benutzername/).fill('desk-reasons');
    await page.getByLabel(/Password|Mot de passe|Passwort/).fill(PASSWORD);
    await page.getByRole('button', { name: /Sign in|Se connecter|Anmelden/ }).click();
    await page.waitForURL('**/control/requests');
    return { context, page };
  }

  /** The form of one action on the request's page. */
  const actionForm = (page: Page, action: string) => page.locator(`form:has(input[name="action"][value="${action}"])`);

  /** The history table's text, tags removed. */
  const historyText = async (page: Page) => (await page.locator('table').last().innerText()).replace(/\s+/g, ' ');

  for (const w of LANGUAGES) {
    test(`a capture and a refund with their reasons (${w.language}, 1280 and 375 px)`, async () => {
      const r = await createRequest(t, { request_type: 'IMPRINT', amount: 200, reservation_ref: `WHY-${w.language}` });
      await arrangeStatus(t.db, r.uuid, 'AUTHORISED_TO_VALIDATE');
      const { context, page } = await signedIn(w.locale);
      await page.goto(`/control/requests/${r.uuid}`);
      assert.equal(await page.getAttribute('html', 'lang'), w.language);
      const capture = actionForm(page, 'capture');
      await atEachWidth(page, async (width) => {
        // The fields are labelled, readable and within the screen at both widths.
        assert.ok(await capture.getByLabel(w.reason).isVisible(), `${w.language} ${width}: the reason`);
        assert.ok(await capture.getByLabel(w.note).isVisible(), `${w.language} ${width}: the note`);
        const wider = await page.evaluate(
          'document.documentElement.scrollWidth - document.documentElement.clientWidth',
        );
        assert.ok(Number(wider) <= 0, `${w.language} ${width}: ${wider} px wider than the screen`);
        const violations = (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
        assert.deepEqual(violations, [], `${w.language} ${width}`);
        await keepScreenshot(page, `test-results/reasons-form-${w.language}-${width}.png`);
      });
      await page.setViewportSize({ width: 1280, height: 900 });
      await capture.locator('input[name="amount"]').fill('80');
      await capture.getByLabel(w.reason).selectOption({ label: w.noShow });
      await capture.getByLabel(w.note).fill('Première nuit « due »');
      await capture.getByRole('button').click();
      await page.waitForURL('**/confirm?**');
      await keepScreenshot(page, `test-results/reasons-confirm-${w.language}.png`);
      const question = (await page.locator('main').innerText()).replace(/\s+/g, ' ');
      assert.ok(question.includes(`${w.because} ${w.noShow} · Première nuit « due »`), question);
      await page.getByRole('button', { name: w.confirm }).click();
      await page.waitForURL(`**/control/requests/${r.uuid}`);
      const after = await historyText(page);
      assert.ok(after.includes(`${w.because} ${w.noShow} · Première nuit « due »`), after);

      const refund = actionForm(page, 'refund');
      await refund.locator('input[name="amount"]').fill('30');
      await refund.getByLabel(w.reason).selectOption({ label: w.goodwill });
      await refund.getByRole('button').click();
      await page.waitForURL('**/confirm?**');
      await page.getByRole('button', { name: w.confirm }).click();
      await page.waitForURL(`**/control/requests/${r.uuid}`);
      assert.ok((await historyText(page)).includes(`${w.because} ${w.goodwill}`));
      await keepScreenshot(page, `test-results/reasons-history-${w.language}.png`);

      // The request says both, as the API and every event do.
      const detail = await t.app.inject({
        method: 'GET',
        url: `/api/payment-requests/${r.uuid}/`,
        headers: t.tenant.headers,
      });
      assert.deepEqual(
        [detail.json().capture_reason, detail.json().capture_note, detail.json().refund_reason],
        ['no_show', 'Première nuit « due »', 'goodwill'],
      );

      // The audit names the reason in words, and the note.
      await page.goto(`/control/audit?reference=${r.reference}`);
      const audit = (await page.locator('main').innerText()).replace(/\s+/g, ' ');
      assert.ok(audit.includes(`${w.given}: ${w.noShow}`), audit);
      assert.ok(audit.includes('Première nuit « due »'), audit);
      assert.ok(audit.includes(`${w.given}: ${w.goodwill}`), audit);
      await context.close();
    });
  }

  test('the ledger export has each move’s reason and note as its last columns; a reason off the list moves nothing', async () => {
    const c = await new ControlClient(t, '10.6.2.9').signedIn('desk-reasons');
    const file = await c.get('/control/requests/export?what=ledger&q=WHY-en');
    const rows = csvObjects(file.body.slice(1));
    const header = file.body.slice(1).split('\r\n')[0]?.split(',') ?? [];
    assert.deepEqual(header.slice(-2), ['reason', 'reason_note']);
    assert.deepEqual(
      rows.filter((x) => x.kind !== 'hold').map((x) => [x.kind, x.reason, x.reason_note]),
      [
        ['capture', 'no_show', 'Première nuit « due »'],
        ['refund', 'goodwill', ''],
      ],
    );

    // A form with a reason the list does not have: refused at the confirmation and at the post.
    const r = await createRequest(t, { request_type: 'IMPRINT', amount: 50 });
    await arrangeStatus(t.db, r.uuid, 'AUTHORISED_TO_VALIDATE');
    const confirm = await c.get(`/control/requests/${r.uuid}/confirm?action=capture&reason=minibar`);
    assert.equal(confirm.statusCode, 303);
    const page = await c.get(`/control/requests/${r.uuid}/confirm?action=capture&reason=no_show`);
    const post = await c.post(`/control/requests/${r.uuid}/capture`, {
      reason: 'typo',
      nonce: page.body.match(/name="nonce" value="([^"]+)"/)?.[1] ?? '',
    });
    assert.equal(post.statusCode, 303);
    const row = await t.db.query<{ status: string }>('SELECT status FROM payment_requests WHERE id = $1', [r.uuid]);
    assert.equal(row.rows[0]?.status, 'AUTHORISED_TO_VALIDATE');
  });
});
