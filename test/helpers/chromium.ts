import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** A quiet headless browser: no sandbox (containers), no background traffic, no QUIC. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

// CI installs chromium (.ci/run); a developer machine without it skips rather than fails.
export const chromiumSkip: string | false =
  !existsSync(CHROMIUM) && !process.env.CI ? `${CHROMIUM} is not installed` : false;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}
