import { errors, type FieldIssue } from './errors.ts';
import { MAX_AMOUNT, toMinorUnits } from './money.ts';
import type { Currency, Language, RequestType } from './statuses.ts';

/** The create body once its shape is validated by the route schema. */
export interface CreatePaymentRequestInput {
  request_type: RequestType;
  amount?: number;
  currency?: Currency;
  guest_email: string;
  guest_first_name: string;
  guest_last_name: string;
  guest_phone?: string;
  language?: Language;
  reservation_ref: string;
  reservation_data?: Record<string, unknown>;
}

/** What gets stored: defaults applied, money in minor units. */
export interface NewPaymentRequest {
  requestType: RequestType;
  amountCents: number;
  currency: Currency;
  guestEmail: string;
  guestFirstName: string;
  guestLastName: string;
  guestPhone: string;
  language: Language;
  reservationRef: string;
  reservationData: Record<string, unknown>;
  /** `reservation_data.checkin`, kept in its own column so the daily job finds it by index. */
  checkin: string | null;
}

export const MAX_RESERVATION_DATA_BYTES = 16 * 1024;

/**
 * What PostgreSQL cannot store as text or jsonb: NUL, and UTF-16 surrogates without their pair
 * (text would silently turn them into U+FFFD, jsonb refuses them). Refused up front as a 422,
 * never discovered by the database as a 500.
 *
 * Said in two parts in the schemas, because the OpenAPI document is read by validators in other
 * languages: the pattern refuses NUL, written so that every common regex dialect compiles it
 * (ECMA-262, Rust's regex, Python's re, Java, PCRE: `\x00`, no surrogate escape, which Rust's
 * regex refuses, no lookaround, no backreference); the `x-well-formed-unicode` extension says the
 * text must be well-formed Unicode (no unpaired surrogate), which the service's validator checks
 * and no portable pattern can state (a Rust string cannot even hold an unpaired surrogate).
 */
export const STORABLE_TEXT_PATTERN = '^[^\\x00]*$';
/** The schema keyword (an OpenAPI extension) for "no unpaired surrogate": see STORABLE_TEXT_PATTERN. */
export const WELL_FORMED_KEYWORD = 'x-well-formed-unicode';
export const UNSTORABLE_TEXT_MESSAGE = 'must not contain NUL characters or unpaired surrogates';
/** An unpaired surrogate: with the u flag, a class of surrogates matches only those left alone. */
const UNPAIRED_SURROGATE = /[\uD800-\uDFFF]/u;

/** Whether a string is free of unpaired surrogates (well-formed UTF-16). */
export function isWellFormedText(s: string): boolean {
  return !UNPAIRED_SURROGATE.test(s);
}

/** Whether PostgreSQL can store a string as given: no NUL, no unpaired surrogate. */
export function isStorableText(s: string): boolean {
  return !s.includes('\u0000') && isWellFormedText(s);
}

/**
 * Names and references: storable text without bidirectional controls (U+061C, U+200E/F,
 * U+202A to U+202E, U+2066 to U+2069). Those reorder what a reader sees: a guest name or a
 * reference shown in the back office, an e-mail or a PMS could display other text than it
 * holds (a "Trojan Source" display). No real name or reference needs them. Portable as
 * STORABLE_TEXT_PATTERN is, with the same extension for the surrogates.
 */
export const PLAIN_TEXT_PATTERN = '^[^\\x00\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069]*$';
export const PLAIN_TEXT_MESSAGE =
  'must not contain NUL characters, unpaired surrogates or bidirectional control characters';

/**
 * A guest's name: plain text on one line, no control character at all (a line break in a name
 * splits an e-mail's greeting, a CSV row or a PMS folio line; no name holds one).
 */
export const NAME_TEXT_PATTERN = '^[^\\x00-\\x1F\\x7F-\\x9F\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069]*$';
export const NAME_TEXT_MESSAGE =
  'must be one line: no line breaks or other control characters, unpaired surrogates or bidirectional control characters';

/**
 * A note beside a money move: free text whose tab and line breaks are text, no other control
 * character (an escape sequence, a NUL), as the back office refuses them in every form.
 */
export const NOTE_TEXT_PATTERN = '^[^\\x00-\\x08\\x0B\\x0C\\x0E-\\x1F\\x7F-\\x9F]*$';
export const NOTE_TEXT_MESSAGE =
  'must not contain control characters (tab and line breaks are text) or unpaired surrogates';

/**
 * A guest's e-mail address, as the service accepts it: a dot-atom local part (letters, digits
 * and the symbols RFC 5322 allows in an atom, dots between) and a domain name of two labels or
 * more. What RFC 5321 also allows and no guest's mailbox needs is refused: a quoted local part
 * ("a b"@x.com), an address literal (a@[127.0.0.1]), a domain of one label (x@dev). The
 * document states this pattern, not `format: email`, which allows all three; a refusal keeps
 * its code, format_email. Portable as PLAIN_TEXT_PATTERN is (no lookaround, no flag: both cases
 * spelt; in the class, the asterisk is not followed by the plus, which some checkers would read
 * as a possessive quantifier).
 */
export const EMAIL_PATTERN =
  "^[A-Za-z0-9!#$%&'*/+=?^_`{|}~-]+(?:\\.[A-Za-z0-9!#$%&'*/+=?^_`{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\\.)+[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$";

/** True when a string, or any key or string inside a JSON value, holds unstorable text. */
export function hasUnstorableText(value: unknown): boolean {
  if (typeof value === 'string') return !isStorableText(value);
  if (Array.isArray(value)) return value.some(hasUnstorableText);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).some(([k, v]) => !isStorableText(k) || hasUnstorableText(v));
  }
  return false;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The number written by the two to four ASCII digits of `s` from `from` to `to`. */
function digitsAt(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) n = n * 10 + s.charCodeAt(i) - 48;
  return n;
}

/**
 * A real calendar date in `YYYY-MM-DD` (2026-02-30 is not), years 0100 to 9999 (a Date read
 * 00YY as 19YY: such years were never accepted). Counted on the digits: a create checks its
 * dates several times, and a Date and its ISO string for each were the create's largest cost
 * in its own code.
 */
export function isIsoDate(value: unknown): value is string {
  if (typeof value !== 'string' || !ISO_DATE.test(value)) return false;
  const year = digitsAt(value, 0, 4);
  const month = digitsAt(value, 5, 7);
  const day = digitsAt(value, 8, 10);
  if (year < 100 || month < 1 || month > 12 || day < 1) return false;
  if (month === 2) return day <= (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28);
  return day <= (month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31);
}

/**
 * The field rules the schema cannot say (two decimals, the amount's range, the reservation
 * data's size, text and dates), on whichever of these fields has the type the schema wants.
 * The route runs them even when the schema refused something else, so one 422 lists every
 * field to fix: a client is never told about the amount's decimals only in a second round.
 */
export function createFieldIssues(input: { amount?: unknown; reservation_data?: unknown }): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const amount = input.amount;
  if (typeof amount === 'number') {
    if (amount < 0)
      issues.push({ field: 'amount', message: 'must be greater than or equal to 0', code: 'amount_negative' });
    else if (amount > MAX_AMOUNT)
      issues.push({ field: 'amount', message: `must be at most ${MAX_AMOUNT}`, code: 'amount_too_large' });
    else if (toMinorUnits(amount) === undefined)
      issues.push({ field: 'amount', message: 'must have at most two decimals', code: 'amount_decimals' });
  }
  const data = input.reservation_data;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return issues;
  const fields = data as Record<string, unknown>;
  if (Buffer.byteLength(JSON.stringify(fields)) > MAX_RESERVATION_DATA_BYTES) {
    issues.push({
      field: 'reservation_data',
      message: `must be at most ${MAX_RESERVATION_DATA_BYTES} bytes`,
      code: 'too_long',
    });
  } else if (hasUnstorableText(fields)) {
    issues.push({ field: 'reservation_data', message: UNSTORABLE_TEXT_MESSAGE, code: 'unstorable_text' });
  }
  for (const key of ['checkin', 'checkout'] as const) {
    if (key in fields && !isIsoDate(fields[key])) {
      issues.push({
        field: `reservation_data.${key}`,
        message: 'must be a date in YYYY-MM-DD format',
        code: 'date_format',
      });
    }
  }
  if (isIsoDate(fields.checkin) && isIsoDate(fields.checkout) && fields.checkout < fields.checkin) {
    issues.push({
      field: 'reservation_data.checkout',
      message: 'must not be before checkin',
      code: 'checkout_before_checkin',
    });
  }
  return issues;
}

/**
 * The business rules the schema cannot say. Order matters: the spec's 400 for a DEPOSIT
 * without a positive amount wins over the generic 422s, since integrators match on it.
 */
export function validateCreate(input: CreatePaymentRequestInput): NewPaymentRequest {
  const amount = input.amount ?? 0;
  if (input.request_type === 'DEPOSIT' && !(amount > 0)) throw errors.depositAmountRequired();

  const issues = createFieldIssues(input);
  if (issues.length > 0) throw errors.validation(issues);
  const cents = toMinorUnits(amount);
  const data = input.reservation_data ?? {};

  return {
    requestType: input.request_type,
    amountCents: cents ?? 0,
    currency: input.currency ?? 'EUR',
    guestEmail: input.guest_email,
    guestFirstName: input.guest_first_name,
    guestLastName: input.guest_last_name,
    guestPhone: input.guest_phone ?? '',
    language: input.language ?? 'fr',
    reservationRef: input.reservation_ref,
    reservationData: data,
    checkin: isIsoDate(data.checkin) ? data.checkin : null,
  };
}
