import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ACCOUNT_MESSAGES } from '../../src/control/account/words.ts';
import { ADMIN_MESSAGES } from '../../src/control/admin/words.ts';
import { BOOKS_MESSAGES } from '../../src/control/books/words.ts';
import { BULK_MESSAGES } from '../../src/control/bulk/words.ts';
import { NEW_REQUEST_MESSAGES } from '../../src/control/new-request/words.ts';
import { PMS_MESSAGES } from '../../src/control/pms/words.ts';
import { EXPORT_MESSAGES } from '../../src/control/requests/export-words.ts';
import { GUARANTEE_CONTROL_MESSAGES } from '../../src/control/requests/guarantee-words.ts';
import { REQUESTS_MESSAGES } from '../../src/control/requests/words.ts';
import { SETTING_PROBLEMS } from '../../src/control/settings/setting-problems.ts';
import { SETTINGS_MESSAGES } from '../../src/control/settings/words.ts';
import { CONTROL_MESSAGES } from '../../src/control/shell/words.ts';
import { SIGN_IN_MESSAGES } from '../../src/control/sign-in/words.ts';
import { ROLE_MESSAGES } from '../../src/control/team/words.ts';
import { TODAY_MESSAGES } from '../../src/control/today/words.ts';
import { WEBHOOK_MESSAGES } from '../../src/control/webhooks/words.ts';
import { DAY_PLAN_WORDS } from '../../src/day-plan/day-plan-words.ts';
import { GUARANTEE_GUEST_MESSAGES } from '../../src/guest/guarantee-messages.ts';
import { MESSAGES } from '../../src/guest/messages.ts';
import { PAYMENT_WORDING } from '../../src/i18n/payment-wording.ts';
import { GUARANTEE_MAIL_MESSAGES } from '../../src/mail/guarantee-messages.ts';
import { MAIL_MESSAGES } from '../../src/mail/mail-messages.ts';

/** A straight apostrophe between two letters: "n'a", "provider's". Readers get ’ everywhere. */
const STRAIGHT_APOSTROPHE = /\p{L}'\p{L}/u;

/**
 * Every text a catalogue can produce, with where it came from: its strings, and what its
 * functions return for placeholder arguments (they only interpolate, so any value shows the
 * fixed words around it).
 */
function textsOf(value: unknown, path: string, out: [string, string][]): void {
  if (typeof value === 'string') out.push([path, value]);
  else if (typeof value === 'function') {
    const args = Array.from({ length: value.length }, () => 'X');
    let produced: unknown;
    try {
      produced = value(...args);
    } catch {
      // A function that needs a richer argument (a number's methods, an object): its words are
      // checked through the strings of the same catalogue and the pages' own tests.
      return;
    }
    textsOf(produced, `${path}()`, out);
  } else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) textsOf(v, `${path}.${key}`, out);
  }
}

const CATALOGUES = {
  guest: MESSAGES,
  mail: MAIL_MESSAGES,
  paymentWording: PAYMENT_WORDING,
  control: CONTROL_MESSAGES,
  account: ACCOUNT_MESSAGES,
  settingProblems: SETTING_PROBLEMS,
  exports: EXPORT_MESSAGES,
  guaranteeControl: GUARANTEE_CONTROL_MESSAGES,
  guaranteeGuest: GUARANTEE_GUEST_MESSAGES,
  guaranteeMail: GUARANTEE_MAIL_MESSAGES,
  roles: ROLE_MESSAGES,
  signIn: SIGN_IN_MESSAGES,
  today: TODAY_MESSAGES,
  dayPlan: DAY_PLAN_WORDS,
  webhooks: WEBHOOK_MESSAGES,
  requests: REQUESTS_MESSAGES,
  bulk: BULK_MESSAGES,
  newRequest: NEW_REQUEST_MESSAGES,
  settings: SETTINGS_MESSAGES,
  admin: ADMIN_MESSAGES,
  books: BOOKS_MESSAGES,
  pms: PMS_MESSAGES,
};

describe('typography of what guests and staff read', () => {
  for (const [name, catalogue] of Object.entries(CATALOGUES)) {
    test(`${name}: apostrophes are typographic in every language`, () => {
      const texts: [string, string][] = [];
      textsOf(catalogue, name, texts);
      assert.ok(texts.length >= 6, `${name}: the walk found its strings (${texts.length})`);
      const straight = texts.filter(([, text]) => STRAIGHT_APOSTROPHE.test(text)).map(([path]) => path);
      assert.deepEqual(straight, []);
    });
  }
});
