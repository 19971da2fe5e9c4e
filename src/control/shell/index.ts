export {
  audit,
  controlNotFound,
  field,
  flash,
  isUuid,
  LANGUAGE_COOKIE,
  languageOf,
  ownScope,
  pageContext,
  tenantScope,
  user,
} from './context.ts';
export { Form, invalidFields, listOf, refusedFields, refuseInvalid } from './forms.ts';
export { firstQueryValues, printable, refuseUnacceptedText } from './input-guard.ts';
export { CONTROL_LANGUAGES, type ControlLanguage, isControlLanguage, languageFromHeader } from './language.ts';
export {
  type ControlUser,
  csrfField,
  formatAmount,
  formatDateTime,
  formatDay,
  messagePage,
  notFoundPage,
  type PageContext,
  page,
  zoneName,
} from './layout.ts';
export { allows, leastRoleFor, mayUse, type Need, needOf, routeKey } from './route-roles.ts';
export {
  ABSOLUTE_MS,
  CSRF_COOKIE,
  IDLE_MS,
  registerSessions,
  renewCsrfSecret,
  SESSION_COOKIE,
  sessionAlive,
} from './session.ts';
export { amountInWords } from './spell-amount.ts';
export { CONTROL_CSS, CONTROL_JS, CONTROL_SCRIPT_PATH, CONTROL_STYLESHEET_PATH } from './styles.ts';
export { tenantChooser } from './tenant-chooser.ts';
export { tenantContextOf } from './tenant-context.ts';
export { CONTROL_MESSAGES, type ControlMessages, type MoneyWords } from './words.ts';
