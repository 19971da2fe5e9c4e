import type { FieldIssue } from '../domain/index.js';

/**
 * The tenant settings a user may change, as one table: the CLI builds its options from it
 * (`payreq tenant update`), the back office its form, and both validate through `parseSettings`.
 * A new setting is one row here and one column in the tenants table.
 */
export type SettingKind = 'text' | 'email' | 'boolean' | 'integer' | 'timezone';

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
    name: 'create_rate_limit',
    option: 'create-rate-limit',
    kind: 'integer',
    min: 0,
    max: 1_000_000,
    nullable: true,
    help: 'creates per minute per API key; 0: no limit; empty or "default": the instance default',
  },
];

export type SettingValue = string | number | boolean | null;
export type SettingsPatch = Record<string, SettingValue>;

// Deliberately simple: one @, no spaces or angle brackets, a dot in the domain. The address
// goes into a From header, so CR/LF (header injection) must never pass.
const EMAIL = /^[^\s@<>",;]+@[^\s@<>",;]+\.[^\s@<>",;]+$/;
const INTEGER = /^-?\d{1,10}$/;

function canonicalTimezone(value: string): string | undefined {
  try {
    if (!/^[A-Za-z][\w+-]*(\/[\w+-]+)*$/.test(value)) return undefined;
    return new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** One raw value (a CLI option or a form field) to its stored value, or what is wrong with it. */
export function parseSetting(
  field: SettingField,
  raw: string | boolean,
): { value: SettingValue } | { problem: string } {
  if (field.kind === 'boolean') {
    if (typeof raw === 'boolean') return { value: raw };
    if (['true', 'on', '1', 'yes'].includes(raw)) return { value: true };
    if (['false', 'off', '0', 'no', ''].includes(raw)) return { value: false };
    return { problem: 'must be on or off' };
  }
  if (typeof raw === 'boolean') return { problem: 'needs a value' };
  const v = raw.trim();
  if (field.nullable && (v === '' || (field.kind === 'integer' && v.toLowerCase() === 'default'))) {
    return { value: null };
  }
  switch (field.kind) {
    case 'text':
      if (v.length < (field.min ?? 0) || v === '') return { problem: 'must not be empty' };
      if (v.length > (field.max ?? Number.POSITIVE_INFINITY)) {
        return { problem: `must be at most ${field.max} characters (got ${v.length})` };
      }
      return { value: v };
    case 'email':
      if (v.length > (field.max ?? 254) || !EMAIL.test(v)) return { problem: 'must be an e-mail address' };
      return { value: v };
    case 'timezone': {
      const zone = canonicalTimezone(v);
      return zone ? { value: zone } : { problem: 'must be an IANA time zone such as Europe/Paris' };
    }
    case 'integer': {
      const n = INTEGER.test(v) ? Number(v) : Number.NaN;
      if (!Number.isInteger(n) || n < (field.min ?? 0) || n > (field.max ?? Number.MAX_SAFE_INTEGER)) {
        return { problem: `must be a whole number from ${field.min} to ${field.max}` };
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
    if ('problem' in parsed) issues.push({ field: field.name, message: parsed.problem });
    else patch[field.name] = parsed.value;
  }
  return { patch, issues };
}
