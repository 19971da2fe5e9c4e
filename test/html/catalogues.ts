import { ACCOUNT_MESSAGES } from '../../src/control/account/words.ts';
import { ADMIN_MESSAGES } from '../../src/control/admin/words.ts';
import { BOOKS_MESSAGES } from '../../src/control/books/words.ts';
import { BULK_MESSAGES } from '../../src/control/bulk/words.ts';
import { NEW_REQUEST_MESSAGES } from '../../src/control/new-request/words.ts';
import { PAYOUT_MESSAGES } from '../../src/control/payouts/words.ts';
import { PMS_MESSAGES } from '../../src/control/pms/words.ts';
import { EXPORT_MESSAGES } from '../../src/control/requests/export-words.ts';
import { GUARANTEE_CONTROL_MESSAGES } from '../../src/control/requests/guarantee-words.ts';
import { HOLD_CHAIN_MESSAGES } from '../../src/control/requests/hold-chain-words.ts';
import { REASON_MESSAGES } from '../../src/control/requests/reason-words.ts';
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

/** Every catalogue of words guests and staff read, by name. */
export const CATALOGUES = {
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
  payouts: PAYOUT_MESSAGES,
  holdChain: HOLD_CHAIN_MESSAGES,
  reasons: REASON_MESSAGES,
};
