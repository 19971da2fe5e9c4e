export {
  type ActionOutcome,
  type CommandDeps,
  operationKey,
  type PaymentRequestCommands,
  paymentRequestCommands,
  type TenantContext,
} from './commands.js';
export { type GuestCommands, guestCommands } from './guest-commands.js';
export {
  type EntryFacts,
  type MoneyMove,
  type MoneyOperation,
  type MoneyRunner,
  moneyRunner,
  type RunResult,
  type Settled,
} from './money-runner.js';
export { holdOperation, holdOperationOn } from './operations/hold.js';
export {
  giveBack,
  type HandSettlement,
  type Mismatch,
  type ReconcileOptions,
  type ReconcileResult,
  type Reconciler,
  reconciler,
  SettleRefused,
} from './reconcile.js';
