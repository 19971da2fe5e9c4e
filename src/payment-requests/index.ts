export {
  type ActionOutcome,
  type PaymentRequestCommands,
  paymentRequestCommands,
  type TenantContext,
} from './commands.js';
export { type GuestCommands, guestCommands, type NotificationOutcome } from './guest-commands.js';
