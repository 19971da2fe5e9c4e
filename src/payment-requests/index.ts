export {
  type ActionOutcome,
  type PaymentRequestCommands,
  paymentRequestCommands,
  type TenantContext,
} from './commands.js';
