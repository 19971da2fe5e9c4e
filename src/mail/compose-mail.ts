import type { DigestPayload } from '../day-plan/index.ts';
import type { InvitationMailPayload, OutboxEmail, TenantMailRow } from '../db/index.ts';
import { isDeclineReason, OPEN_LINK_STATUSES } from '../domain/index.ts';
import { renderDailyDigest } from './digest-template.ts';
import type { EmailSubject } from './email-subjects.ts';
import {
  renderGuaranteeFailedGuest,
  renderGuaranteeFailedHotel,
  renderHoldDeclinedHotel,
} from './guarantee-templates.ts';
import { renderInvitation } from './invitation-template.ts';
import {
  type RenderedMail,
  renderCardRegistered,
  renderDepositConfirmation,
  renderMoneyNotice,
  renderPaymentLink,
} from './templates.ts';

// The message an outbox row becomes: pure, from the row and what it is about.

export function hostOf(publicBaseUrl: string): string {
  return new URL(publicBaseUrl).hostname;
}

export interface Message {
  from: { name: string; address: string };
  to: string;
  subject: string;
  text: string;
  html: string;
  messageId: string;
}

function renderFor(row: OutboxEmail, s: EmailSubject, publicBaseUrl: string): RenderedMail {
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
      return renderGuaranteeFailedGuest(
        s,
        s.tenant_name,
        publicBaseUrl,
        isDeclineReason(s.hold_decline_reason) ? s.hold_decline_reason : null,
      );
    case 'guarantee_failed_hotel':
      return renderGuaranteeFailedHotel(s, s.tenant_name, publicBaseUrl, {
        // The reason in words in each language; a refusal from before reasons were kept, "other".
        reason: isDeclineReason(s.hold_decline_reason) ? s.hold_decline_reason : s.last_hold_error ? 'other' : null,
        code: s.hold_decline_code ?? s.last_hold_error,
        failures: s.guarantee_failures,
        guestAsked: row.guest_asked === true,
      });
    case 'hold_declined_hotel':
      return renderHoldDeclinedHotel(s, s.tenant_name, publicBaseUrl, {
        reason: isDeclineReason(s.hold_decline_reason) ? s.hold_decline_reason : 'other',
        code: s.hold_decline_code,
        finalOn: s.checkin,
      });
    case 'payment_reminder':
      return renderPaymentLink(s, s.tenant_name, publicBaseUrl, {
        number: row.reminder_number ?? 1,
        linkExpiresAt: s.link_expires_at,
      });
    case 'daily_digest':
    case 'team_invitation':
      throw new Error('a daily digest or an invitation is rendered from its tenant, not a request');
  }
}

/** Where the e-mail goes: the guest, or for the hotel's own e-mails its contact address. */
function recipientOf(row: OutboxEmail, s: EmailSubject): string {
  if (row.kind !== 'guarantee_failed_hotel' && row.kind !== 'hold_declined_hotel') return s.guest_email;
  // Queued only while the tenant had one; removed since, the e-mail has nowhere to go.
  if (!s.contact_email) throw new Error('the tenant has no contact_email');
  return s.contact_email;
}

/**
 * Why a queued reminder must not go any more: the request was paid, cancelled or expired
 * after it was queued (a deleted one has no subject at all). Undefined: it still goes.
 */
export function reminderNoLongerDue(row: OutboxEmail, s: EmailSubject, now: Date): string | undefined {
  if (row.kind !== 'payment_reminder') return undefined;
  if (!(OPEN_LINK_STATUSES as readonly string[]).includes(s.status))
    return `reminder dropped: the request is ${s.status}`;
  if (new Date(s.link_expires_at).getTime() <= now.getTime()) return 'reminder dropped: the link has expired';
  return undefined;
}

/** The outbox kinds written for a tenant, not a request: rendered from the tenant and the row's payload. */
export const TENANT_KINDS: readonly string[] = ['daily_digest', 'team_invitation'];

/**
 * The hotel's daily digest, to its contact address, or an invitation to work there, to the
 * address the manager typed; from the hotel's sender address.
 */
export function buildDigestMessage(row: OutboxEmail, t: TenantMailRow, publicBaseUrl: string, host: string): Message {
  const invitation = row.kind === 'team_invitation' ? (row.payload as InvitationMailPayload) : undefined;
  if (!invitation && !t.contact_email) throw new Error('the tenant has no contact_email to send its digest to');
  const mail = invitation
    ? renderInvitation(invitation, t, publicBaseUrl)
    : renderDailyDigest(row.payload as DigestPayload, t, publicBaseUrl);
  return {
    from: { name: t.name.replace(/[\r\n]+/g, ' '), address: t.sender_email || `no-reply@${host}` },
    to: invitation ? invitation.to : (t.contact_email as string),
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    messageId: `<${row.cause.replace(/[^\w.-]/g, '.')}@${host}>`,
  };
}

export function buildMessage(row: OutboxEmail, s: EmailSubject, publicBaseUrl: string, host: string): Message {
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
