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
} from './context.js';
export { Form, invalidFields, listOf, refusedFields, refuseInvalid } from './forms.js';
export { firstQueryValues, printable, refuseUnacceptedText } from './input-guard.js';
export { CONTROL_LANGUAGES, type ControlLanguage, isControlLanguage, languageFromHeader } from './language.js';
export {
  type ControlUser,
  csrfField,
  formatAmount,
  formatDateTime,
  messagePage,
  notFoundPage,
  type PageContext,
  page,
} from './layout.js';
export { allows, mayUse, type Need, needOf, routeKey } from './route-roles.js';
export {
  ABSOLUTE_MS,
  CSRF_COOKIE,
  IDLE_MS,
  registerSessions,
  renewCsrfSecret,
  SESSION_COOKIE,
  sessionAlive,
} from './session.js';
export { amountInWords } from './spell-amount.js';
export { CONTROL_CSS, CONTROL_JS, CONTROL_SCRIPT_PATH, CONTROL_STYLESHEET_PATH } from './styles.js';
export { tenantChooser } from './tenant-chooser.js';
export { tenantContextOf } from './tenant-context.js';
export { CONTROL_MESSAGES, type ControlMessages, type MoneyWords } from './words.js';
