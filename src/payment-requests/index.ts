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
export { captureOperation } from './operations/capture.ts';
export { actorOf } from './operations/entry-actor.ts';
export { giveBackOperation } from './operations/give-back.ts';
export { onTestClock, placedAt } from './operations/placed-at.ts';
export { refundOperation } from './operations/refund.ts';
export { releaseOperation } from './operations/release.ts';
export { booksOf, type Verdict, verdictFromOrder } from './operations/verdict.ts';
