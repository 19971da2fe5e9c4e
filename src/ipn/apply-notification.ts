import {
  applyStatusChanges,
  type Database,
  type LedgerEntry,
  lockNotifiedRequest,
  type MoneyLedgerRepository,
  markProviderEventApplied,
  type NotifiedRequestRow,
  openProviderIncident,
  type Queryable,
  recordIncident,
  recordProviderEvent,
  type StatusChange,
  tenantOfDeletedRequest,
} from '../db/index.ts';
import { networkOfCardNumber, nextStatus, type Status, type Trigger } from '../domain/index.ts';
import { CARD_EXPIRES_BEFORE_HOLD, cardExpiresBeforeHold, holdMonthFor } from '../holds/index.ts';
import { giveBack } from '../money-audit/index.ts';
import type { MoneyRunner } from '../payment-requests/index.ts';
import type { ProviderNotification } from '../providers/index.ts';
import type { SecretBox } from '../secrets/index.ts';

/**
 * applied: the status moved; duplicate: this event was seen before; ignored: nothing to do
 * (an out-of-order refusal, say); incident: money arrived where it should not, and is given
 * back; unknown_order: no request of ours ever had this id.
 */
export type NotificationOutcome = 'applied' | 'duplicate' | 'ignored' | 'incident' | 'unknown_order';

/** The outcomes of a guest's payment, each a move of the transition table. */
type GuestOutcome = 'registered' | 'paid' | 'refused' | 'error';

const TRIGGER_OF: Record<GuestOutcome, Trigger> = {
  registered: 'guest_registers_card',
  paid: 'guest_pays',
  refused: 'payment_refused',
  error: 'payment_error',
};

type GuestNotification = ProviderNotification & { outcome: GuestOutcome };

type LockedRow = NotifiedRequestRow;

/**
 * What a notification asks of the transition table: its outcome's trigger; a card registered
 * for an IMPRINT whose renewal the bank refused (its old hold still the guarantee) replaces the
 * card. Registered on a hold that did not fail, it is not applicable (an incident, voided).
 */
function triggerOf(n: GuestNotification, row: LockedRow): Trigger {
  if (n.outcome === 'registered' && row.status === 'AUTHORISED_TO_VALIDATE' && row.guarantee_failed) {
    return 'guest_replaces_card';
  }
  return TRIGGER_OF[n.outcome];
}

export interface NotificationDeps {
  db: Database;
  ledger: MoneyLedgerRepository;
  runner: MoneyRunner;
  cardTokens: SecretBox;
  log?: { warn(obj: object, msg: string): void };
}

/**
 * A card registered for an IMPRINT that lapses before its hold is placed: the hold would be
 * refused, so the registration is taken as a failed attempt (ERROR, the guest asked on the
 * spot for another card) and the card is not kept. The provider accepted it; nothing was
 * debited (a registration moves no money), so nothing goes back.
 */
function expiringCardRefused(n: GuestNotification, row: LockedRow | undefined, now: Date): GuestNotification {
  if (n.outcome !== 'registered' || row?.request_type !== 'IMPRINT' || !row.checkin) return n;
  if (!n.expiryMonth || !n.expiryYear) return n;
  const today = now.toISOString().slice(0, 10);
  if (!cardExpiresBeforeHold({ month: n.expiryMonth, year: n.expiryYear }, row.checkin, today)) return n;
  const expiry = `${String(n.expiryMonth).padStart(2, '0')}/${n.expiryYear}`;
  return {
    eventId: n.eventId,
    paymentRequestId: n.paymentRequestId,
    outcome: 'error',
    detail: `card expires ${expiry}, before its hold in ${holdMonthFor(row.checkin, today)}`,
    reason: CARD_EXPIRES_BEFORE_HOLD,
  };
}

/**
 * Why money reported by the provider cannot be applied to the request as it stands, or
 * undefined when it can. Only a payment or a card registration moves anything.
 */
function whyNotApplicable(n: GuestNotification, row: LockedRow | undefined, to: Status | undefined) {
  if (!row) return 'the request was deleted';
  if (!to) return `the request is ${row.status}`;
  if (n.outcome === 'paid') {
    if (n.amountCents !== row.amount) return `amount ${n.amountCents} differs from the request's ${row.amount}`;
    if (n.currency !== undefined && n.currency !== row.currency) {
      return `currency ${n.currency} differs from the request's ${row.currency}`;
    }
  }
  return undefined;
}

/**
 * Applies one verified provider event, once. In one transaction: the event is recorded (its
 * primary key makes a duplicate a no-op), the request locked, the transition table asked,
 * then the money reported goes to the ledger and the status moves with it through the one
 * status-change function. Money that arrives where it should not (a request refused,
 * cancelled, expired, deleted or already paid; a wrong amount or currency) never moves the
 * status: it is recorded as an incident, shown on the history, and given back through the
 * money runner once the transaction has committed.
 */
export function notifications(deps: NotificationDeps) {
  const { db, ledger, runner, cardTokens } = deps;

  return {
    async apply(provider: string, notified: ProviderNotification): Promise<NotificationOutcome> {
      let incident: LedgerEntry | undefined;
      const outcome = await db.transaction(async (tx): Promise<NotificationOutcome> => {
        const fresh = await recordProviderEvent(tx, {
          provider,
          eventId: notified.eventId,
          paymentRequestId: notified.paymentRequestId,
          outcome: notified.outcome,
        });
        if (!fresh) return 'duplicate';
        const row = await lockNotifiedRequest(tx, notified.paymentRequestId);
        if (!isGuestOutcome(notified)) return providerReported(tx, notified, row, provider);
        const n = expiringCardRefused(notified, row, new Date());
        const tenantId = row?.tenant_id ?? (await tenantOfDeletedRequest(tx, n.paymentRequestId));
        if (!tenantId) return 'unknown_order';
        const to = row ? nextStatus(row.status, triggerOf(n, row), row.request_type) : undefined;
        const movesMoney = n.outcome === 'paid' || n.outcome === 'registered';
        if (!movesMoney) {
          if (!row || !to) return 'ignored';
          const moved = await applyStatusChanges(tx, [change(n, row, to, provider)]);
          if (moved.length === 0) return 'ignored';
          await markProviderEventApplied(tx, provider, n.eventId);
          return 'applied';
        }
        // The same provider transaction reported again under another event id: already known.
        if (n.transactionId && (await ledger.hasReportedTransaction(tx, n.paymentRequestId, n.transactionId))) {
          return 'duplicate';
        }
        const why = whyNotApplicable(n, row, to);
        const ledgerId = await ledger.recordReported(tx, {
          paymentRequestId: n.paymentRequestId,
          tenantId,
          kind: n.outcome === 'paid' ? 'payment' : 'verification',
          amount: n.outcome === 'paid' ? (n.amountCents ?? 0) : 0,
          currency: n.currency ?? row?.currency ?? 'EUR',
          provider,
          providerTransactionId: n.transactionId ?? null,
          idempotencyKey: `event:${provider}:${n.eventId}`,
          incident: why ?? null,
          actor: { source: 'ipn', actor: provider },
          ...(n.account !== undefined ? { providerAccount: n.account } : {}),
          ...(n.legacyTransId ? { legacyTransId: n.legacyTransId } : {}),
        });
        if (why || !row || !to) {
          const reason = why ?? 'not applicable';
          await recordIncident(tx, {
            paymentRequestId: n.paymentRequestId,
            tenantId,
            status: row?.status ?? null,
            actor: { source: 'ipn', actor: provider },
            ledgerId,
            detail: { incident: reason, event_id: n.eventId, outcome: n.outcome, amount: n.amountCents ?? 0 },
          });
          incident = await ledger.find(ledgerId, tx);
          return 'incident';
        }
        const moved = await applyStatusChanges(tx, [{ ...change(n, row, to, provider), ledgerId }]);
        if (moved.length === 0) {
          // The row is locked and payable, so only a claim could stop the move: the money
          // still must not count where the status did not move.
          const reason = `the request is busy (${row.status})`;
          await ledger.markIncident(tx, ledgerId, reason);
          await recordIncident(tx, {
            paymentRequestId: row.id,
            tenantId,
            status: row.status,
            actor: { source: 'ipn', actor: provider },
            ledgerId,
            detail: { incident: reason, event_id: n.eventId, outcome: n.outcome, amount: n.amountCents ?? 0 },
          });
          incident = await ledger.find(ledgerId, tx);
          return 'incident';
        }
        await markProviderEventApplied(tx, provider, n.eventId);
        return 'applied';
      });
      if (incident) {
        // After the commit, so the incident is on record whatever the give-back's fate; a
        // give-back that fails is tried again by reconcile.
        await giveBack(runner, incident).catch((err: unknown) =>
          deps.log?.warn({ err: (err as Error).message, ledger: incident?.id }, 'give-back failed; reconcile retries'),
        );
      }
      return outcome;
    },
  };

  /**
   * What the provider reports of its own (Stripe's events): a hold it let lapse moves the
   * request to EXPIRED, as payreq's own expiry would at the hold's end, when it is the
   * request's live hold; a dispute moves nothing. Either opens an incident the Books and Today
   * pages and the daily digest show.
   */
  async function providerReported(
    tx: Queryable,
    n: ProviderNotification,
    row: LockedRow | undefined,
    provider: string,
  ): Promise<NotificationOutcome> {
    if (!row) return 'ignored';
    const own = n.transactionId !== undefined && n.transactionId === row.provider_transaction_id;
    if (!own) return 'ignored';
    let status: Status = row.status;
    if (n.outcome === 'hold_lapsed') {
      const to = nextStatus(row.status, 'hold_expired', row.request_type);
      if (!to) return 'ignored';
      const moved = await applyStatusChanges(tx, [
        {
          id: row.id,
          from: [row.status],
          to,
          actor: { source: 'ipn', actor: provider },
          detail: { event_id: n.eventId, reason: 'hold_lapsed_at_provider', transaction_id: n.transactionId ?? null },
        },
      ]);
      if (moved.length === 0) return 'ignored';
      status = to;
    }
    await openProviderIncident(tx, {
      paymentRequestId: row.id,
      tenantId: row.tenant_id,
      reference: row.reference,
      currency: row.currency,
      problem: n.outcome === 'hold_lapsed' ? 'hold_lapsed' : 'disputed',
      payreqNet: Number(row.amount_captured) - Number(row.amount_refunded),
      status,
    });
    await markProviderEventApplied(tx, provider, n.eventId);
    deps.log?.warn({ request: row.id, event: n.eventId, outcome: n.outcome }, 'provider reported an incident');
    return 'applied';
  }

  function change(n: GuestNotification, row: LockedRow, to: Status, provider: string): StatusChange {
    const paid = n.outcome === 'paid';
    // A new card while the old hold still guarantees: the hold's transaction stays the request's.
    const replaces = triggerOf(n, row) === 'guest_replaces_card';
    return {
      id: row.id,
      from: [row.status],
      to,
      actor: { source: 'ipn', actor: provider },
      detail: { event_id: n.eventId, detail: n.detail ?? null, ...(n.reason ? { reason: n.reason } : {}) },
      set: {
        provider,
        ...(n.transactionId && !replaces ? { providerTransactionId: n.transactionId } : {}),
        ...(replaces ? { renewHold: true as const } : {}),
        ...(n.cardToken ? { cardToken: cardTokens.seal(n.cardToken, row.id) } : {}),
        ...(n.initialIssuerTransactionId ? { networkTransactionId: n.initialIssuerTransactionId } : {}),
        ...(n.maskedPan ? { maskedPan: n.maskedPan } : {}),
        ...(n.outcome === 'registered' && n.maskedPan
          ? { cardNetwork: n.cardNetwork ?? networkOfCardNumber(n.maskedPan) }
          : {}),
        ...(n.expiryMonth ? { expiryMonth: n.expiryMonth } : {}),
        ...(n.expiryYear ? { expiryYear: n.expiryYear } : {}),
      },
      // A deposit paid by the guest earns a confirmation e-mail (one per cause).
      ...(paid && row.request_type === 'DEPOSIT' ? { email: 'deposit_confirmation' as const } : {}),
    };
  }
}

export type Notifications = ReturnType<typeof notifications>;

function isGuestOutcome(n: ProviderNotification): n is GuestNotification {
  return Object.hasOwn(TRIGGER_OF, n.outcome);
}
