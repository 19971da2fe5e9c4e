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
export { hashPassword, verifyPassword } from './passwords.js';
