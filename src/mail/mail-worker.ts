import nodemailer, { type Transporter } from 'nodemailer';
import { startPollingLoop } from '../background/index.js';
import type { Config } from '../config/index.js';
import type { Queryable } from '../db/index.js';
import { type ClaimedEmail, emailOutboxRepository } from '../db/index.js';
import { type EmailSubject, emailSubjects } from './email-subjects.js';
import { renderGuaranteeFailedGuest, renderGuaranteeFailedHotel } from './guarantee-templates.js';
import {
  type RenderedMail,
  renderCardRegistered,
  renderDepositConfirmation,
  renderMoneyNotice,
  renderPaymentLink,
} from './templates.js';

/** The slice of a logger (pino, Fastify's) the worker writes to. */
export interface MailLog {
  info(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
  error(obj: Record<string, unknown>, msg: string): void;
}

/** What the worker needs of the service: AppContext fits. */
export interface MailContext {
  config: Pick<Config, 'smtpUrl' | 'publicBaseUrl' | 'mailRetryBaseMs'>;
  db: Queryable;
}

export interface RoundOptions {
  log?: MailLog;
  /** Reused across rounds by the worker; a round makes (and closes) its own otherwise. */
  transport?: Transporter;
  batchSize?: number;
}

export interface RoundResult {
  claimed: number;
  sent: number;
  failed: number;
  /** Logged instead of sent, SMTP_URL being unset. */
  logged: number;
}

/** Attempts before a row is given up ('failed'); with 30 s doubling, about 4 hours of retries. */
export const MAX_ATTEMPTS = 10;
const MAX_BACKOFF_MS = 60 * 60 * 1000;
/**
 * How long a claim keeps other instances off a row. Longer than any SMTP exchange can take (the
 * transport's timeouts below), so a row is only claimed again once its holder surely gave up.
 */
const LEASE_MS = 5 * 60 * 1000;
const SMTP_TIMEOUT_MS = 60 * 1000;
/** Without SMTP, a pending row is logged again this often (not every poll). */
const LOGGED_ONLY_RECHECK_MS = 60 * 60 * 1000;
const POLL_MS = 5000;

export function retryDelayMs(attempts: number, baseMs: number): number {
  return Math.min(baseMs * 2 ** Math.max(attempts - 1, 0), MAX_BACKOFF_MS);
}

export function smtpTransport(smtpUrl: string): Transporter {
  return nodemailer.createTransport({
    url: smtpUrl,
    connectionTimeout: SMTP_TIMEOUT_MS,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
  });
}

const silentLog: MailLog = { info() {}, warn() {}, error() {} };

function hostOf(publicBaseUrl: string): string {
  return new URL(publicBaseUrl).hostname;
}

interface Message {
  from: { name: string; address: string };
  to: string;
  subject: string;
  text: string;
  html: string;
  messageId: string;
}

function renderFor(row: ClaimedEmail, s: EmailSubject, publicBaseUrl: string): RenderedMail {
  switch (row.kind) {
    case 'payment_link':
      return renderPaymentLink(s, s.tenant_name, publicBaseUrl);
    case 'card_registered':
      return renderCardRegistered(s, s.tenant_name);
    case 'deposit_confirmation':
      return renderDepositConfirmation(s, s.tenant_name);
    case 'capture_notice':
    case 'release_notice':
    case 'refund_notice':
      return renderMoneyNotice(row.kind, s, s.tenant_name, row.moved_amount);
    case 'guarantee_failed_guest':
      return renderGuaranteeFailedGuest(s, s.tenant_name, publicBaseUrl);
    case 'guarantee_failed_hotel':
      return renderGuaranteeFailedHotel(s, s.tenant_name, publicBaseUrl, {
        reason: s.last_hold_error,
        failures: s.guarantee_failures,
        guestAsked: row.guest_asked === true,
      });
  }
}

/** Where the e-mail goes: the guest, or for the hotel's own e-mails its contact address. */
function recipientOf(row: ClaimedEmail, s: EmailSubject): string {
  if (row.kind !== 'guarantee_failed_hotel') return s.guest_email;
  // Queued only while the tenant had one; removed since, the e-mail has nowhere to go.
  if (!s.contact_email) throw new Error('the tenant has no contact_email');
  return s.contact_email;
}

function buildMessage(row: ClaimedEmail, s: EmailSubject, publicBaseUrl: string, host: string): Message {
  const mail: RenderedMail = renderFor(row, s, publicBaseUrl);
  return {
    from: { name: s.tenant_name.replace(/[\r\n]+/g, ' '), address: s.sender_email || `no-reply@${host}` },
    to: recipientOf(row, s),
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    // Derived from the cause: the same e-mail sent twice (see the crash window below) carries
    // the same Message-ID, which receivers use to drop the copy.
    messageId: `<${row.cause.replace(/[^\w.-]/g, '.')}@${host}>`,
  };
}

/**
 * One round of the outbox: claim due rows, render, send, record. Safe to run from any number of
 * instances at once (the claim gives each row to one of them).
 *
 * Never twice for one cause: the cause is UNIQUE in the outbox, and a row is marked sent right
 * after the SMTP server accepted it. The window left is a crash (or a lost database) between
 * that acceptance and markSent: the lease then runs out and the row is sent again. The
 * Message-ID, derived from the cause, lets receiving servers and clients drop that duplicate.
 */
export async function sendDueEmails(
  ctx: MailContext,
  now: Date = new Date(),
  opts: RoundOptions = {},
): Promise<RoundResult> {
  const log = opts.log ?? silentLog;
  const q = emailOutboxRepository(ctx.db);
  const result: RoundResult = { claimed: 0, sent: 0, failed: 0, logged: 0 };
  const rows = await q.claim(now, opts.batchSize ?? 20, LEASE_MS);
  result.claimed = rows.length;
  if (rows.length === 0) return result;
  const subjects = await emailSubjects(
    q,
    rows.flatMap((r) => (r.payment_request_id ? [r.payment_request_id] : [])),
  );
  const transport = opts.transport ?? (ctx.config.smtpUrl ? smtpTransport(ctx.config.smtpUrl) : undefined);
  const host = hostOf(ctx.config.publicBaseUrl);
  async function fail(row: ClaimedEmail, err: unknown): Promise<void> {
    const final = row.attempts >= MAX_ATTEMPTS;
    const retryAt = new Date(now.getTime() + retryDelayMs(row.attempts, ctx.config.mailRetryBaseMs));
    const reason = err instanceof Error ? err.message : String(err);
    await q.markFailed(row.id, reason, retryAt, final);
    log.warn({ outboxId: row.id, cause: row.cause, attempts: row.attempts, final, err: reason }, 'e-mail not sent');
    result.failed++;
  }
  const started = Date.now();
  try {
    for (const row of rows) {
      // A slow server must not outlast the lease: past half of it, the rows left go back to
      // the queue unsent rather than risk another instance sending them while we still would.
      if (Date.now() - started > LEASE_MS / 2) {
        await q.release(row.id);
        continue;
      }
      const s = row.payment_request_id ? subjects.get(row.payment_request_id) : undefined;
      if (!s) {
        // The request was deleted after the e-mail was queued: nothing left to tell the guest.
        await q.markFailed(row.id, 'payment request deleted', now, true);
        result.failed++;
        continue;
      }
      let message: Message;
      try {
        message = buildMessage(row, s, ctx.config.publicBaseUrl, host);
      } catch (err) {
        // A template that cannot render this row: recorded and retried like a refusal, so the
        // round goes on with the others and the row is not lost.
        await fail(row, err);
        continue;
      }
      if (!transport) {
        // Development: the message goes to the log (no card data is ever in it; the link is
        // meant for the guest anyway) and stays in the outbox for a later start with SMTP.
        log.info(
          { outboxId: row.id, cause: row.cause, to: message.to, subject: message.subject, text: message.text },
          'e-mail not sent: SMTP_URL is not set',
        );
        await q.keepPending(row.id, new Date(now.getTime() + LOGGED_ONLY_RECHECK_MS));
        result.logged++;
        continue;
      }
      try {
        await transport.sendMail(message);
      } catch (err) {
        await fail(row, err);
        continue;
      }
      await q.markSent(row.id);
      result.sent++;
    }
  } finally {
    if (transport && !opts.transport) transport.close();
  }
  return result;
}

/**
 * The outbox sender, running continuously: a round every few seconds, at once again while
 * rounds come back full. `stop()` waits for the round in progress.
 */
export function startMailWorker(ctx: MailContext, log: MailLog): { stop(): Promise<void> } {
  const transport = ctx.config.smtpUrl ? smtpTransport(ctx.config.smtpUrl) : undefined;
  const batchSize = 20;
  const loop = startPollingLoop({
    intervalMs: POLL_MS,
    async before() {
      if (!transport) return;
      await emailOutboxRepository(ctx.db)
        .wakeLoggedOnly()
        .catch((err: unknown) => log.warn({ err: String(err) }, 'e-mail outbox: cannot wake logged rows'));
    },
    async round() {
      const r = await sendDueEmails(ctx, new Date(), { log, transport, batchSize });
      return r.claimed === batchSize;
    },
    onError: (err) =>
      log.error({ err: err instanceof Error ? err.message : String(err) }, 'e-mail outbox round failed'),
  });
  return {
    async stop() {
      await loop.stop();
      transport?.close();
    },
  };
}
