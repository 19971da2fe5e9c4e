import { existsSync } from 'node:fs';
import axe from 'axe-core';
import { type Browser, type BrowserContext, type BrowserContextOptions, chromium, type Page } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** CI installs chromium (.ci/run); a developer machine without it skips rather than fails. */
export const skipWithoutChromium: string | false =
  !existsSync(CHROMIUM) && !process.env.CI ? `${CHROMIUM} is not installed` : false;

/** The system's chromium, headless; Playwright gives every launch a fresh temporary profile. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * axe-core in the page, as a string: the page's CSP allows no script of ours, but evaluation from
 * the driver is not a page script. Once per loaded document: a check after a viewport change on
 * the same document reuses it (half a megabyte of script to compile again otherwise).
 */
export async function injectAxe(page: Page): Promise<void> {
  if (await page.evaluate(`typeof window.axe === 'undefined'`)) await page.evaluate(axe.source);
}

export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await injectAxe(page);
  return page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')),
  })))`);
}

/**
 * The two widths every page is checked at, a laptop's and a phone's. A test checks both on the
 * same loaded page, resizing between them (the media queries apply again, the layout is redone):
 * a second browser context, sign-in and page load per width were most of a browser file's time.
 */
export const WIDTHS = [1280, 375] as const;

/** Runs `check` on the page at each width in turn (height `height`), ending at the last. */
export async function atEachWidth(
  page: Page,
  check: (width: number) => Promise<void>,
  widths: readonly number[] = WIDTHS,
  height = 900,
): Promise<void> {
  for (const width of widths) {
    await page.setViewportSize({ width, height });
    const seen = await page.evaluate('window.innerWidth');
    if (seen !== width) throw new Error(`the page is ${seen} px wide, not ${width} px, after the resize`);
    await check(width);
  }
}

let address = 0;

/**
 * A browser context as one guest: its own client address (X-Forwarded-For, read by an app
 * started with TRUST_PROXY), so the guest pages' 30 a minute per IP applies per test, not to
 * the whole file; and the console's CSP refusals, collected.
 */
export async function guestContext(
  browser: Browser,
  baseUrl: string,
  opts: BrowserContextOptions = {},
): Promise<{ context: BrowserContext; page: Page; cspErrors: string[] }> {
  address++;
  const context = await browser.newContext({
    baseURL: baseUrl,
    extraHTTPHeaders: { 'x-forwarded-for': `198.51.100.${address}` },
    ...opts,
  });
  const page = await context.newPage();
  const cspErrors: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) cspErrors.push(m.text());
  });
  return { context, page, cspErrors };
}

/**
 * Pictures of the pages for a person to look at (under test-results/), taken only when asked:
 * `PAYREQ_SCREENSHOTS=1 npm test -- test/control/browser.test.ts`. Nothing checks them, and
 * full-page PNGs of a hundred pages in three languages were a good part of the browser tests' time.
 */
export async function keepScreenshot(page: Page, file: string, fullPage = true): Promise<void> {
  if (process.env.PAYREQ_SCREENSHOTS === '1') await page.screenshot({ path: file, fullPage });
}
