import { MIN_PASSWORD_LENGTH, type UserIssueCode } from '../../admin-users/index.ts';
import { CONTROL_LANGUAGES, CONTROL_MESSAGES, type ControlLanguage, type ControlMessages } from '../shell/index.ts';
import { ACCOUNT_MESSAGES } from './words.ts';

/**
 * What is wrong with a username or a new password, in the page's language. The users page
 * (admin/) still passes its whole catalogue (`ctx.m`) rather than its language: that catalogue
 * is one of CONTROL_MESSAGES, whose language is found by which one it is.
 */
export function issueText(to: ControlLanguage | ControlMessages, code: UserIssueCode | string): string {
  const language = typeof to === 'string' ? to : (CONTROL_LANGUAGES.find((l) => CONTROL_MESSAGES[l] === to) ?? 'en');
  const a = ACCOUNT_MESSAGES[language];
  if (code === 'password_short') return a.passwordShort(MIN_PASSWORD_LENGTH);
  return a.issues[code] ?? CONTROL_MESSAGES[language].invalid;
}
