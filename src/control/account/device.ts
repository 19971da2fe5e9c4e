import Bowser from 'bowser';
import type { ControlLanguage } from '../shell/index.ts';
import { ACCOUNT_MESSAGES } from './words.ts';

/**
 * A session's device as a person reads it, "Firefox 128 on Windows", from the User-Agent kept at
 * sign-in. Parsed with bowser (MIT, maintained, no dependencies): User-Agent strings are a
 * moving target better left to a list someone keeps up. What it cannot name is shown as
 * "Unknown browser" with the start of the string, so two such sessions can still be told apart.
 */
export function deviceSummary(userAgent: string | undefined, language: ControlLanguage): string {
  const a = ACCOUNT_MESSAGES[language];
  const ua = (userAgent ?? '').trim();
  if (ua === '') return a.unknownDevice;
  const parser = Bowser.getParser(ua);
  const browser = parser.getBrowserName();
  if (!browser) return `${a.unknownDevice} (${ua.slice(0, 40)})`;
  const major = parser.getBrowserVersion()?.split('.')[0];
  const named = major ? `${browser} ${major}` : browser;
  const os = parser.getOSName();
  return os ? a.deviceOn(named, os) : named;
}
