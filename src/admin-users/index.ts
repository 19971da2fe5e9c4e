// Users of the back office: accounts, passwords (scrypt), who may see which tenant.
export {
  type AdminUser,
  type AdminUsers,
  adminErrors,
  adminUsers,
  MIN_PASSWORD_LENGTH,
  normaliseUsername,
  passwordFromStdin,
  passwordProblem,
  usernameProblem,
} from './admin-users.js';
export { isCommonPassword } from './common-passwords.js';
export { checkPassword, hashPassword, SCRYPT, verifyPassword } from './passwords.js';
export { afterFailure, refunded, SIGN_IN_LIMITS, type SignInGate, signInThrottle } from './sign-in-throttle.js';
