export {
  type ActionOutcome,
  type CommandDeps,
  operationKey,
  type PaymentRequestCommands,
  paymentRequestCommands,
  type TenantContext,
} from './commands.ts';
export { type GuestCommands, guestCommands } from './guest-commands.ts';
export {
  type EntryFacts,
  type MoneyMove,
  type MoneyOperation,
  type MoneyRunner,
  moneyRunner,
  type RunResult,
  type Settled,
} from './money-runner.ts';
export { holdOperation, holdOperationOn } from './operations/hold.ts';
export { renewOperation, renewOperationAt, supersededReleaseOperation } from './operations/renew.ts';
export {
  giveBack,
  type HandSettlement,
  type Mismatch,
  type ReconcileOptions,
  type ReconcileResult,
  type Reconciler,
  reconciler,
  SettleRefused,
} from './reconcile.ts';
