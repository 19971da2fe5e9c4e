import { MIN_PASSWORD_LENGTH, type UserIssueCode } from '../../admin-users/index.js';
import type { ControlMessages } from '../shell/index.js';

/** What is wrong with a username or a new password, in the page's language. */
export function issueText(m: ControlMessages, code: UserIssueCode | string): string {
  if (code === 'password_short') return m.account.passwordShort(MIN_PASSWORD_LENGTH);
  return m.account.issues[code] ?? m.invalid;
}
