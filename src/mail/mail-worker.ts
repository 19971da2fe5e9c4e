import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../config/index.ts';
import type { Database } from '../db/index.ts';
import { emailOutboxRepository } from '../db/index.ts';
import { plural } from '../i18n/index.ts';
import { type JobKind, type RetryPolicy, runDueJobs } from '../queue/index.ts';
import {
  buildDigestMessage,
  buildMessage,
  hostOf,
  type Message,
  reminderNoLongerDue,
  TENANT_KINDS,
} from './compose-mail.ts';
import { type EmailSubject, emailSubjects } from './email-subjects.ts';

/** The slice of a logger (pino, Fastify's) the worker writes to. */
export interface MailLog {
  info(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
  error(obj: Record<string, unknown>, msg: string): void;
}

/** What the worker needs of the service: AppContext fits. */
export interface MailContext {
  config: Pick<Config, 'smtpUrl' | 'publicBaseUrl' | 'mailRetryBaseMs' | 'nodeEnv' | 'mailBacklogMaxAgeHours'>;
  db: Database;
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
/** E-mails one instance sends at once (one SMTP connection each). */
const CONCURRENCY = 4;

/** The mail kind's retry schedule: MAIL_RETRY_BASE_MS, doubling, at most an hour, 10 attempts. */
export function mailRetryPolicy(baseMs: number): RetryPolicy {
  return { baseMs, maxMs: MAX_BACKOFF_MS, maxAttempts: MAX_ATTEMPTS, leaseMs: LEASE_MS };
}

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

/** `gone`: its outbox row was finished or deleted meanwhile; nothing to send. */
export type MailOutcome = 'sent' | 'failed' | 'logged' | 'gone';

/**
 * The mail kind of the queue: one job per pending outbox row, sent with `transport` (none:
 * logged, and kept for a start with SMTP).
 *
 * Never twice for one cause: the cause is UNIQUE in the outbox, and a row is marked sent (with
 * its job finished, fenced) right after the SMTP server accepted it. The window left is a crash
 * (or a lost database) between that acceptance and the finish: the lease then runs out and
 * the row is sent again. The Message-ID, derived from the cause, lets receiving servers and
 * clients drop that duplicate.
 */
export function mailJobKind(ctx: MailContext, transport: Transporter | undefined, log: MailLog): JobKind<MailOutcome> {
  const host = hostOf(ctx.config.publicBaseUrl);
  // Development keeps each message as rendered, for the mail viewer (/dev/mail); nothing else does.
  const keepForViewer = ctx.config.nodeEnv === 'development';
  const kept = (message: Message, now: Date) => ({ ...message, renderedAt: now.toISOString() });
  return {
    name: 'mail',
    policy: mailRetryPolicy(ctx.config.mailRetryBaseMs),
    concurrency: CONCURRENCY,
    async run(job, finish, now) {
      const q = emailOutboxRepository(ctx.db);
      const row = await q.load(job.ref);
      // Sent, failed or deleted (its tenant was) since the job was queued: nothing left to do.
      if (!row) {
        await finish.done();
        return 'gone';
      }
      const attempts = job.attempts;
      const giveUp = async (reason: string) => {
        await finish.fail(
          reason,
          () => (tx) => emailOutboxRepository(tx).markFailed(row.id, reason, now, true, attempts),
          {
            final: true,
          },
        );
        return 'failed' as const;
      };
      const fail = async (err: unknown) => {
        const reason = err instanceof Error ? err.message : String(err);
        const after = await finish.fail(
          reason,
          (a) => (tx) => emailOutboxRepository(tx).markFailed(row.id, reason, a.runAt, a.final, attempts),
        );
        log.warn({ outboxId: row.id, cause: row.cause, attempts, final: after.final, err: reason }, 'e-mail not sent');
        return 'failed' as const;
      };
      const s: EmailSubject | undefined = row.payment_request_id
        ? (await emailSubjects(q, [row.payment_request_id])).get(row.payment_request_id)
        : undefined;
      const forTenant = TENANT_KINDS.includes(row.kind);
      const digestOf = forTenant ? (await q.tenants([row.tenant_id]))[0] : undefined;
      // The request was deleted after the e-mail was queued: nothing left to tell the guest.
      if (!s && !digestOf) return giveUp(forTenant ? 'tenant deleted' : 'payment request deleted');
      // Paid, cancelled or expired since it was queued: the guest is not asked again.
      const dropped = s ? reminderNoLongerDue(row, s, now) : undefined;
      if (dropped) return giveUp(dropped);
      let message: Message;
      try {
        message = digestOf
          ? buildDigestMessage(row, digestOf, ctx.config.publicBaseUrl, host)
          : buildMessage(row, s as EmailSubject, ctx.config.publicBaseUrl, host);
      } catch (err) {
        // A template that cannot render this row: recorded and retried like a refusal.
        return fail(err);
      }
      if (!transport) {
        // Development: the message goes to the log (no card data is ever in it; the link is
        // meant for the guest anyway) and stays in the outbox for a later start with SMTP.
        log.info(
          { outboxId: row.id, cause: row.cause, to: message.to, subject: message.subject, text: message.text },
          'e-mail not sent: SMTP_URL is not set',
        );
        const at = new Date(now.getTime() + LOGGED_ONLY_RECHECK_MS);
        await finish.postpone(at, async (tx) => {
          await emailOutboxRepository(tx).keepPending(row.id, at, attempts - 1);
          if (keepForViewer) await emailOutboxRepository(tx).keepDevMessage(row.id, kept(message, now));
        });
        return 'logged';
      }
      try {
        await transport.sendMail(message);
      } catch (err) {
        return fail(err);
      }
      await finish.done(async (tx) => {
        await emailOutboxRepository(tx).markSent(row.id, attempts);
        if (keepForViewer) await emailOutboxRepository(tx).keepDevMessage(row.id, kept(message, now));
      });
      return 'sent';
    },
  };
}

/**
 * One round of the outbox, for tests and one-off runs: claim due rows (the queue's mail jobs),
 * send, record. Safe to run from any number of instances at once.
 */
export async function sendDueEmails(
  ctx: MailContext,
  now: Date = new Date(),
  opts: RoundOptions = {},
): Promise<RoundResult> {
  const log = opts.log ?? silentLog;
  const transport = opts.transport ?? (ctx.config.smtpUrl ? smtpTransport(ctx.config.smtpUrl) : undefined);
  try {
    const outcomes = await runDueJobs(ctx.db, mailJobKind(ctx, transport, log), {
      now,
      limit: opts.batchSize ?? 20,
      log,
    });
    return {
      claimed: outcomes.length,
      sent: outcomes.filter((o) => o === 'sent').length,
      failed: outcomes.filter((o) => o === 'failed').length,
      logged: outcomes.filter((o) => o === 'logged').length,
    };
  } finally {
    if (transport && !opts.transport) transport.close();
  }
}

/**
 * The e-mails kept back while SMTP_URL was unset, now that it is set: those younger than
 * MAIL_BACKLOG_MAX_AGE_HOURS are due at once, the older ones expired (a payment link or a
 * receipt days late, in a burst, would do more harm than good); the log says how many of each
 * before the first goes. Nothing to say when nothing piled up.
 */
export async function releaseMailBacklog(
  ctx: MailContext,
  log: MailLog,
): Promise<{ sending: number; expired: number } | undefined> {
  const hours = ctx.config.mailBacklogMaxAgeHours;
  try {
    const backlog = await emailOutboxRepository(ctx.db).releaseLoggedOnly(hours);
    if (backlog.sending + backlog.expired > 0) {
      log.info(
        { sending: backlog.sending, expired: backlog.expired, maxAgeHours: hours },
        `SMTP_URL is set: sending ${plural('en', backlog.sending, { one: '# e-mail', other: '# e-mails' })} kept while it was not; ` +
          `${backlog.expired} queued more than ${hours} h ago marked expired, not sent (MAIL_BACKLOG_MAX_AGE_HOURS)`,
      );
    }
    return backlog;
  } catch (err) {
    log.warn({ err: String(err) }, 'e-mail outbox: cannot release the e-mails kept while SMTP_URL was unset');
    return undefined;
  }
}

/**
 * The mail kind as the queue's worker runs it: one SMTP transport for its life, and the rows
 * only logged so far (SMTP_URL was unset) released now that it is set (releaseMailBacklog).
 */
export async function mailWorkerKind(ctx: MailContext, log: MailLog): Promise<{ kind: JobKind; close(): void }> {
  const transport = ctx.config.smtpUrl ? smtpTransport(ctx.config.smtpUrl) : undefined;
  if (transport) await releaseMailBacklog(ctx, log);
  return { kind: mailJobKind(ctx, transport, log), close: () => transport?.close() };
}
