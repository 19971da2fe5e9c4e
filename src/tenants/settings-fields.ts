import type { FieldIssue } from '../domain/index.ts';
import { accentContrastProblem, normaliseHexColour } from './colour-contrast.ts';

/**
 * The tenant settings a user may change, as one table: the CLI builds its options from it
 * (`payreq tenant update`), the back office its form, and both validate through `parseSettings`.
 * A new setting is one row here and one column in the tenants table.
 */
export type SettingKind =
  | 'text'
  | 'email'
  | 'boolean'
  | 'integer'
  | 'timezone'
  | 'url'
  | 'phone'
  | 'colour'
  | 'language';

export interface SettingField {
  /** Column of `tenants` and key in JSON answers. */
  name: string;
  /** The CLI option (`--sender-email`); a boolean also gets `--no-<option>`. */
  option: string;
  kind: SettingKind;
  /** Bounds: characters for text, values for integers. */
  min?: number;
  max?: number;
  /** An empty value stores NULL ("not set"): the wording of what NULL means is in `help`. */
  nullable?: boolean;
  /** Text only: line breaks are kept (an address); other text is one line. */
  multiline?: boolean;
  /** Shown to guests on their pages (the back office groups these under "Guest page"). */
  guestPage?: boolean;
  /** About signing in to the back office (grouped under "Security"). */
  security?: boolean;
  /** Reminders to guests and the hotel's daily digest (grouped under "Reminders and digest"). */
  dayPlan?: boolean;
  /**
   * A boolean whose CLI option takes its value, `--require-2fa true|false`, instead of the
   * `--x` / `--no-x` pair.
   */
  valueOption?: boolean;
  help: string;
}

export const SETTING_FIELDS: readonly SettingField[] = [
  { name: 'name', option: 'name', kind: 'text', min: 1, max: 200, help: 'the establishment, 1 to 200 characters' },
  {
    name: 'sender_email',
    option: 'sender-email',
    kind: 'email',
    max: 254,
    nullable: true,
    help: 'From address of e-mails to guests; empty: no-reply@ the public host',
  },
  {
    name: 'confirmation_email',
    option: 'confirmation-email',
    kind: 'boolean',
    help: 'e-mail the guest the payment link and the confirmation',
  },
  {
    name: 'timezone',
    option: 'timezone',
    kind: 'timezone',
    help: 'IANA time zone of the hotel (e.g. Europe/Paris); dates such as checkin are read in it',
  },
  {
    name: 'hold_days',
    option: 'hold-days',
    kind: 'integer',
    min: 1,
    max: 30,
    help: 'days a pre-authorisation is held before it expires',
  },
  {
    name: 'link_lifetime_days',
    option: 'link-lifetime-days',
    kind: 'integer',
    min: 1,
    max: 365,
    help: 'days a payment link stays payable',
  },
  {
    name: 'guarantee_ask_guest',
    option: 'guarantee-ask-guest',
    kind: 'boolean',
    help: 'when the bank refuses the hold of a guarantee, e-mail the guest the payment link to register another card',
  },
  {
    name: 'guarantee_max_asks',
    option: 'guarantee-max-asks',
    kind: 'integer',
    min: 0,
    max: 10,
    help: 'how many times a guest is e-mailed for another card, per request; after that only the hotel is told',
  },
  {
    name: 'create_rate_limit',
    option: 'create-rate-limit',
    kind: 'integer',
    min: 0,
    max: 1_000_000,
    nullable: true,
    help: 'creates per minute per API key; 0: no limit; empty or "default": the instance default',
  },
  // What the guest page shows of the hotel; each one left out of the page while not set.
  {
    name: 'address',
    guestPage: true,
    option: 'address',
    kind: 'text',
    min: 1,
    max: 300,
    nullable: true,
    multiline: true,
    help: 'postal address shown to guests, up to 300 characters (a line break or "\\n" starts a line); empty: not shown',
  },
  {
    name: 'phone',
    guestPage: true,
    option: 'phone',
    kind: 'phone',
    max: 30,
    nullable: true,
    help: 'phone number shown to guests, e.g. +33 1 23 45 67 89; empty: not shown',
  },
  {
    name: 'contact_email',
    guestPage: true,
    option: 'contact-email',
    kind: 'email',
    max: 254,
    nullable: true,
    help: 'e-mail address shown to guests, where payreq tells the hotel of a refused guarantee and where the daily digest goes; empty: none of these',
  },
  {
    name: 'terms_url',
    guestPage: true,
    option: 'terms-url',
    kind: 'url',
    max: 500,
    nullable: true,
    help: 'https:// link to the terms and cancellation policy; empty: not shown',
  },
  {
    name: 'accent_color',
    guestPage: true,
    option: 'accent-color',
    kind: 'colour',
    nullable: true,
    help: 'hex colour of the guest page (#1f4e79); it must reach 4.5:1 contrast with white text and the page; empty: the default blue',
  },
  {
    name: 'require_2fa',
    option: 'require-2fa',
    kind: 'boolean',
    security: true,
    valueOption: true,
    help: 'true: every back-office user of the tenant signs in with a second factor (an authenticator app), and one who has none sets it up right after the password; false: each user chooses (CONTROL_REQUIRE_2FA=on requires it of everyone whatever this says)',
  },
  // Reminders of unpaid links, and the hotel's morning digest (docs/e-mail.md, "Reminders", "Daily digest").
  {
    name: 'reminders',
    dayPlan: true,
    option: 'reminders',
    kind: 'boolean',
    help: 'e-mail the guest a reminder of a payment link not paid yet (in the request language)',
  },
  {
    name: 'reminder_after_hours',
    dayPlan: true,
    option: 'reminder-after-hours',
    kind: 'integer',
    min: 0,
    max: 720,
    help: 'hours after the request is made before a first reminder, then between reminders; 0: none of these',
  },
  {
    name: 'reminder_before_expiry_hours',
    dayPlan: true,
    option: 'reminder-before-expiry-hours',
    kind: 'integer',
    min: 0,
    max: 720,
    help: 'a last reminder this many hours before the link expires; 0: none',
  },
  {
    name: 'reminder_max',
    dayPlan: true,
    option: 'reminder-max',
    kind: 'integer',
    min: 1,
    max: 10,
    help: 'reminders a request gets at most (the one before expiry keeps its place)',
  },
  {
    name: 'digest_email',
    dayPlan: true,
    option: 'digest-email',
    kind: 'boolean',
    help: "e-mail the hotel's contact address a digest of its day each morning",
  },
  {
    name: 'digest_hour',
    dayPlan: true,
    option: 'digest-hour',
    kind: 'integer',
    min: 0,
    max: 23,
    help: "hour of the hotel's day (its time zone) the digest is sent at, 0 to 23",
  },
  {
    name: 'digest_language',
    dayPlan: true,
    option: 'digest-language',
    kind: 'language',
    help: 'language of the digest: en, fr or de',
  },
];

export type SettingValue = string | number | boolean | null;
export type SettingsPatch = Record<string, SettingValue>;

// Deliberately simple: one @, no spaces or angle brackets, a dot in the domain. The address
// goes into a From header, so CR/LF (header injection) must never pass.
const EMAIL = /^[^\s@<>",;]+@[^\s@<>",;]+\.[^\s@<>",;]+$/;
const INTEGER = /^-?\d{1,10}$/;
// Digits with the usual separators, an optional leading +; 6 to 20 digits in all.
const PHONE = /^\+?[0-9 ()./-]+$/;
// Control characters (C0 but tab and line feed, DEL, C1) have no place on a page or in a header.
// biome-ignore lint/suspicious/noControlCharactersInRegex: they are what this pattern finds
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** One line, or several lines for an address: each trimmed, empty ones dropped, `\n` typed as two characters read as a break. */
function cleanText(value: string, multiline: boolean): string {
  if (!multiline) return value;
  return value
    .replaceAll('\\n', '\n')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join('\n');
}

function httpsUrl(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  // A user:password@ part has no business in a link shown to guests (and phishing loves it).
  if (url.protocol !== 'https:' || url.hostname === '' || url.username !== '' || url.password !== '') return undefined;
  return url.href;
}

function canonicalTimezone(value: string): string | undefined {
  try {
    if (!/^[A-Za-z][\w+-]*(\/[\w+-]+)*$/.test(value)) return undefined;
    return new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** What is wrong with a value: in English for the CLI and the API, and as a code a page words. */
export type SettingProblemCode =
  | 'true_or_false'
  | 'on_or_off'
  | 'needs_value'
  | 'empty'
  | 'too_long'
  | 'control_characters'
  | 'one_line'
  | 'phone'
  | 'https_url'
  | 'hex_colour'
  | 'low_contrast'
  | 'email'
  | 'time_zone'
  | 'language'
  | 'whole_number';

export interface SettingProblem {
  problem: string;
  code: SettingProblemCode;
}

/** One raw value (a CLI option or a form field) to its stored value, or what is wrong with it. */
export function parseSetting(field: SettingField, raw: string | boolean): { value: SettingValue } | SettingProblem {
  if (field.kind === 'boolean') {
    if (typeof raw === 'boolean') return { value: raw };
    // Typed after its option: only the two words, so a slip never turns a security setting off.
    if (field.valueOption) {
      const word = raw.trim().toLowerCase();
      return word === 'true' || word === 'false'
        ? { value: word === 'true' }
        : { problem: 'must be true or false', code: 'true_or_false' };
    }
    if (['true', 'on', '1', 'yes'].includes(raw)) return { value: true };
    if (['false', 'off', '0', 'no', ''].includes(raw)) return { value: false };
    return { problem: 'must be on or off', code: 'on_or_off' };
  }
  if (typeof raw === 'boolean') return { problem: 'needs a value', code: 'needs_value' };
  const v = raw.trim();
  if (field.nullable && (v === '' || (field.kind === 'integer' && v.toLowerCase() === 'default'))) {
    return { value: null };
  }
  switch (field.kind) {
    case 'text': {
      const text = cleanText(v, field.multiline === true);
      if (text.length < (field.min ?? 0) || text === '') return { problem: 'must not be empty', code: 'empty' };
      if (text.length > (field.max ?? Number.POSITIVE_INFINITY)) {
        return { problem: `must be at most ${field.max} characters (got ${text.length})`, code: 'too_long' };
      }
      if (CONTROL.test(text) || (!field.multiline && text.includes('\n'))) {
        return field.multiline
          ? { problem: 'must not contain control characters', code: 'control_characters' }
          : { problem: 'must be one line of text', code: 'one_line' };
      }
      return { value: text };
    }
    case 'phone': {
      const digits = v.replace(/\D/g, '').length;
      if (v.length > (field.max ?? 30) || !PHONE.test(v) || digits < 6 || digits > 20) {
        return { problem: 'must be a phone number: digits, spaces, + ( ) - . /, 6 to 20 digits', code: 'phone' };
      }
      return { value: v.replace(/\s+/g, ' ') };
    }
    case 'url': {
      const href = v.length <= (field.max ?? 500) ? httpsUrl(v) : undefined;
      return href && href.length <= (field.max ?? 500)
        ? { value: href }
        : { problem: `must be an https:// address of at most ${field.max ?? 500} characters`, code: 'https_url' };
    }
    case 'colour': {
      const colour = normaliseHexColour(v);
      if (!colour) return { problem: 'must be a hex colour such as #1f4e79', code: 'hex_colour' };
      const contrast = accentContrastProblem(colour);
      return contrast ? { problem: `${colour} ${contrast}`, code: 'low_contrast' } : { value: colour };
    }
    case 'email':
      if (v.length > (field.max ?? 254) || !EMAIL.test(v))
        return { problem: 'must be an e-mail address', code: 'email' };
      return { value: v };
    case 'language':
      return ['en', 'fr', 'de'].includes(v) ? { value: v } : { problem: 'must be en, fr or de', code: 'language' };
    case 'timezone': {
      const zone = canonicalTimezone(v);
      return zone ? { value: zone } : { problem: 'must be an IANA time zone such as Europe/Paris', code: 'time_zone' };
    }
    case 'integer': {
      const n = INTEGER.test(v) ? Number(v) : Number.NaN;
      if (!Number.isInteger(n) || n < (field.min ?? 0) || n > (field.max ?? Number.MAX_SAFE_INTEGER)) {
        return { problem: `must be a whole number from ${field.min} to ${field.max}`, code: 'whole_number' };
      }
      return { value: n };
    }
  }
}

/**
 * Raw values keyed by setting name (absent: unchanged) to a patch, or every problem at once
 * so a form can show them all beside their fields.
 */
export function parseSettings(raw: Readonly<Record<string, string | boolean | undefined>>): {
  patch: SettingsPatch;
  issues: FieldIssue[];
} {
  const patch: SettingsPatch = {};
  const issues: FieldIssue[] = [];
  for (const field of SETTING_FIELDS) {
    const value = raw[field.name];
    if (value === undefined) continue;
    const parsed = parseSetting(field, value);
    if ('problem' in parsed) issues.push({ field: field.name, message: parsed.problem, code: parsed.code });
    else patch[field.name] = parsed.value;
  }
  return { patch, issues };
}
