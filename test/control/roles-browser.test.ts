// test-engines: pglite. What a browser sees (the Team page, the header's switch, the 403 page,
// accessibility, forms without JavaScript) does not depend on the engine; the same flows' answers
// and stored rows are tested on both engines by team.test.ts and roles.test.ts.
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  atEachWidth,
  axeViolations,
  keepScreenshot,
  launchChromium,
  skipWithoutChromium,
  WIDTHS,
} from '../helpers/browser.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import type { TenantWithKey } from '../helpers/test-app.ts';
import { ENGINE } from '../helpers/test-app.ts';
import { createUser, PASSWORD } from './control-client.ts';

const SCREENSHOTS = path.join(path.dirname(realpathSync(path.resolve('package.json'))), 'test-results', 'control');

/** The words a test looks for, per language (the pages' own, from src/control/team/messages.ts). */
const WORDS = {
  en: {
    team: 'Team',
    add: 'Add',
    change: 'Change the role',
    forbidden: 'Not allowed',
    switch: 'Switch',
    signIn: 'Sign in',
  },
  fr: {
    team: 'Équipe',
    add: 'Ajouter',
    change: 'Changer le rôle',
    forbidden: 'Action non autorisée',
    switch: 'Changer',
    signIn: 'Se connecter',
  },
  de: {
    team: 'Team',
    add: 'Hinzufügen',
    change: 'Rolle ändern',
    forbidden: 'Nicht erlaubt',
    switch: 'Wechseln',
    signIn: 'Anmelden',
  },
} as const;
type Language = keyof typeof WORDS;

describe(`roles in a real browser (${ENGINE})`, { skip: skipWithoutChromium, timeout: 300_000 }, () => {
  let t: ListeningApp;
  let other: TenantWithKey;
  let browser: Browser;
  let address = 0;

  before(async () => {
    t = await startListeningApp({ env: { TRUST_PROXY: 'true' } });
    browser = await launchChromium();
    mkdirSync(SCREENSHOTS, { recursive: true });
    other = await t.newTenant('Hôtel Voisin');
    await createUser(t, 'boss', t.tenant.tenantId, 'manager');
    await createUser(t, 'clerk', t.tenant.tenantId, 'viewer');
    await createUser(t, 'group', [
      { tenantId: t.tenant.tenantId, role: 'frontdesk' },
      { tenantId: other.tenantId, role: 'manager' },
    ]);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  /** A signed-in browser (own address, for the sign-in throttle), script on or off. */
  async function signedIn(
    username: string,
    opts: { width?: number; language?: Language; script?: boolean } = {},
  ): Promise<{ page: Page; cspErrors: string[]; close: () => Promise<void> }> {
    address++;
    const language = opts.language ?? 'en';
    const context = await browser.newContext({
      baseURL: t.baseUrl,
      viewport: { width: opts.width ?? 1280, height: 900 },
      locale: { en: 'en-GB', fr: 'fr-FR', de: 'de-DE' }[language],
      javaScriptEnabled: opts.script ?? true,
      extraHTTPHeaders: { 'x-forwarded-for': `203.0.113.${150 + address}` },
    });
    const page = await context.newPage();
    const cspErrors: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) cspErrors.push(m.text());
    });
    await page.goto('/control/sign-in');
    await page.locator('#username').fill(username);
    await page.locator('#password').fill(PASSWORD);
    await page.getByRole('button', { name: WORDS[language].signIn }).click();
    await page.waitForURL('**/control/requests');
    return { page, cspErrors, close: () => context.close() };
  }

  async function noViolations(page: Page, what: string): Promise<void> {
    const found = await axeViolations(page);
    assert.deepEqual(
      found.map((v) => `${v.id}: ${v.help} @ ${v.nodes.join(', ')}`),
      [],
      what,
    );
  }

  /** No part of the page wider than the screen (wide tables scroll in their own box). */
  async function fitsWidth(page: Page, what: string): Promise<void> {
    const wide = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    assert.ok(Number(wide) <= 0, `${what}: the page scrolls sideways by ${wide}px`);
  }

  // Each page checked at both widths on the same load, resized between.
  for (const language of ['en', 'fr', 'de'] as const)
    test(`the Team page, the switch and the 403 page in ${language} at ${WIDTHS.join(' and ')} px: axe-clean`, async () => {
      const w = WORDS[language];
      const boss = await signedIn('boss', { width: WIDTHS[0], language });
      await boss.page.getByRole('link', { name: w.team, exact: true }).click();
      await boss.page.waitForURL('**/control/team');
      assert.equal(await boss.page.getByRole('button', { name: w.change }).count(), 3);
      await atEachWidth(boss.page, async (width) => {
        await noViolations(boss.page, `team ${language} ${width}`);
        await fitsWidth(boss.page, `team ${language} ${width}`);
        await keepScreenshot(boss.page, path.join(SCREENSHOTS, `team-${language}-${width}.png`));
      });
      assert.deepEqual(boss.cspErrors, []);
      await boss.close();

      const clerk = await signedIn('clerk', { width: WIDTHS[0], language });
      const refused = await clerk.page.goto('/control/settings');
      assert.equal(refused?.status(), 403);
      assert.equal(await clerk.page.getByRole('heading', { level: 1 }).textContent(), w.forbidden);
      await atEachWidth(clerk.page, async (width) => {
        await noViolations(clerk.page, `403 ${language} ${width}`);
        await fitsWidth(clerk.page, `403 ${language} ${width}`);
      });
      await clerk.close();

      const group = await signedIn('group', { width: WIDTHS[0], language });
      assert.equal(await group.page.locator('#tenant-switch').count(), 1);
      await atEachWidth(group.page, async (width) => {
        await noViolations(group.page, `switch ${language} ${width}`);
        await fitsWidth(group.page, `switch ${language} ${width}`);
        await keepScreenshot(group.page, path.join(SCREENSHOTS, `switch-${language}-${width}.png`), false);
      });
      await group.close();
    });

  test('without script: switch the hotel, invite, accept, then change a role, all by plain forms', async () => {
    const group = await signedIn('group', { script: false, width: 375 });
    // First by name: Hôtel Voisin, where they manage.
    assert.match((await group.page.locator('#tenant-switch option[selected]').textContent()) ?? '', /Hôtel Voisin/);
    await group.page.locator('#tenant-switch').selectOption(t.tenant.tenantId);
    await group.page.getByRole('button', { name: 'Switch' }).click();
    await group.page.waitForURL('**/control/requests');
    assert.match((await group.page.locator('.flash').textContent()) ?? '', /You are now working on Hôtel des Tests\./);
    // A front desk here: no Team in the navigation; back to Voisin, where they manage.
    assert.equal(await group.page.getByRole('link', { name: 'Team', exact: true }).count(), 0);
    await group.page.locator('#tenant-switch').selectOption(other.tenantId);
    await group.page.getByRole('button', { name: 'Switch' }).click();
    await group.page.waitForURL('**/control/requests');
    // On a phone the navigation is folded behind its Menu button, which opens without script.
    await group.page.getByText('Menu', { exact: true }).click();
    await group.page.getByRole('link', { name: 'Team', exact: true }).click();
    await group.page.locator('#add-name').fill('clerk');
    await group.page.locator('#add-role').selectOption('frontdesk');
    await group.page.getByRole('button', { name: 'Add', exact: true }).click();
    await group.page.waitForURL('**/control/team');
    assert.match(
      (await group.page.locator('.flash').textContent()) ?? '',
      /Invitation recorded: if this name signs in to payreq, they are invited to work here as Front desk/,
    );
    const clerkId = (await t.repos.adminUsers.findByUsername('clerk'))?.id;
    assert.deepEqual(await t.repos.adminUsers.roles({ tenantId: other.tenantId, userId: clerkId }), [], 'not yet');
    // The clerk is told at sign-in and accepts on their Invitations page.
    const clerk = await signedIn('clerk', { script: false, width: 375 });
    assert.match((await clerk.page.locator('.flash').textContent()) ?? '', /A hotel invites you to work there/);
    await clerk.page.goto('/control/invitations');
    await clerk.page.getByRole('button', { name: 'Accept', exact: true }).click();
    await clerk.page.waitForURL('**/control/invitations');
    assert.match(
      (await clerk.page.locator('.flash').textContent()) ?? '',
      /You now work at Hôtel Voisin as Front desk\./,
    );
    await clerk.close();
    await group.page.reload();
    await group.page.getByLabel('Role of clerk').selectOption('viewer');
    await group.page.locator(`form[action="/control/team/${clerkId}/role"] button`).click();
    await group.page.waitForURL('**/control/team');
    const [row] = await t.repos.adminUsers.roles({ tenantId: other.tenantId, userId: clerkId });
    assert.equal(row?.role, 'viewer');
    await group.close();
  });
});
