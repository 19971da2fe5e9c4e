// Users of the back office: accounts, passwords (scrypt), two factors (TOTP), who may see which tenant.
export {
  type AdminUser,
  type AdminUsers,
  type AdminUserWithRoles,
  adminErrors,
  adminUsers,
  isTenantRole,
  MIN_PASSWORD_LENGTH,
  normaliseUsername,
  passwordFromStdin,
  passwordIssue,
  passwordProblem,
  type UserIssue,
  type UserIssueCode,
  usernameProblem,
} from './admin-users.ts';
export { isCommonPassword } from './common-passwords.ts';
export { checkPassword, hashPassword, SCRYPT, type ScryptParams, scryptParams, verifyPassword } from './passwords.ts';
export {
  afterFailure,
  refunded,
  SIGN_IN_LIMITS,
  type SignInGate,
  type SignInStep,
  signInThrottle,
} from './sign-in-throttle.ts';
export {
  codeStep,
  newRecoveryCodes,
  normaliseRecoveryCode,
  RECOVERY_CODE_COUNT,
  recoveryCodeHash,
  TOTP_SETTINGS,
  type TwoFactor,
  type TwoFactorState,
  totpCode,
  totpUri,
  twoFactor,
} from './two-factor.ts';
