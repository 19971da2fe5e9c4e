/** Guest e-mails: the outbox written with the state change, its sender and the templates. */
export { escapeHtml } from '../html/index.ts';
export { renderDailyDigest } from './digest-template.ts';
export { type EmailSubject, emailSubjects } from './email-subjects.ts';
export {
  MAX_ATTEMPTS,
  type MailContext,
  type MailLog,
  type MailOutcome,
  mailJobKind,
  mailRetryPolicy,
  mailWorkerKind,
  type RoundResult,
  releaseMailBacklog,
  retryDelayMs,
  sendDueEmails,
} from './mail-worker.ts';
export {
  type MailRequest,
  paymentUrl,
  type ReminderOf,
  type RenderedMail,
  renderDepositConfirmation,
  renderPaymentLink,
} from './templates.ts';
