import { OPEN_LINK_STATUSES, type Status } from '../domain/index.ts';
import type { GuestRequest } from './guest-request.ts';

/** An outcome the guest is told about instead of a card form. */
export type Outcome =
  | 'registered'
  | 'paid'
  | 'charged'
  | 'refused'
  | 'givenBack'
  | 'error'
  | 'cancelled'
  | 'released'
  | 'expired'
  | 'refunded'
  | 'processing'
  | 'guaranteeFailed'
  | 'cardExpiresTooSoon';

export type GuestView = { kind: 'form'; retry: boolean } | { kind: 'outcome'; outcome: Outcome };

/** Statuses in which the guest may still pay (a guest may retry while the request is neither terminal nor paid). */
const PAYABLE: ReadonlySet<Status> = new Set<Status>(OPEN_LINK_STATUSES);

/** What a settled request tells the guest, on either page. */
function settled(req: GuestRequest): Outcome {
  switch (req.status) {
    case 'AUTHORISED':
    case 'AUTHORISED_TO_VALIDATE':
      // The card is registered (an IMPRINT's hold may even be placed): never a second form.
      return req.requestType === 'IMPRINT' ? 'registered' : 'paid';
    case 'CAPTURED':
      return req.requestType === 'DEPOSIT' ? 'paid' : 'charged';
    case 'REFUSED':
      return 'refused';
    case 'CANCELLED':
      // A hold released when the guest arrived ends CANCELLED too, but nothing was cancelled.
      return req.released ? 'released' : 'cancelled';
    case 'REFUNDED':
      return 'refunded';
    default:
      return 'expired';
  }
}

/** Which ERROR it is: a card lapsing before its hold, a refused guarantee, or a technical error. */
function errorOutcome(req: GuestRequest): Outcome {
  if (req.cardExpiresTooSoon) return 'cardExpiresTooSoon';
  return req.guaranteeFailed ? 'guaranteeFailed' : 'error';
}

/**
 * `/payment/<uuid>/`: the card form while the request can still be paid and its link is alive;
 * otherwise the outcome. ERROR shows the form again, with a word about the failed attempt.
 */
export function paymentPageView(req: GuestRequest): GuestView {
  if (PAYABLE.has(req.status) || renewalRefused(req)) {
    if (req.linkExpired) return { kind: 'outcome', outcome: 'expired' };
    return { kind: 'form', retry: req.status === 'ERROR' || renewalRefused(req) };
  }
  return { kind: 'outcome', outcome: settled(req) };
}

/**
 * `/payment/<uuid>/result/`: where the provider sends the guest back. The notification may not
 * have arrived yet (it travels separately): NOT_INITIATED or PENDING means "still processing".
 */
export function resultPageView(req: GuestRequest): Outcome {
  // The guest's money arrived after the request stopped taking any (an old form posted after a
  // refusal or the hotel's cancel): it was given back, and the guest must hear exactly that.
  if (req.moneyGivenBack) return 'givenBack';
  if (PAYABLE.has(req.status)) {
    if (req.linkExpired) return 'expired';
    return req.status === 'ERROR' ? errorOutcome(req) : 'processing';
  }
  if (renewalRefused(req)) return 'guaranteeFailed';
  return settled(req);
}

/**
 * The bank refused to renew the hold: the old one still guarantees the stay until it lapses,
 * and the guest is asked for another card on the same link (the form, with the failure said).
 */
function renewalRefused(req: GuestRequest): boolean {
  return req.status === 'AUTHORISED_TO_VALIDATE' && req.guaranteeFailed;
}

/**
 * Whether the guest's money is only pretend: a Lyra account in TEST mode, a Stripe account with
 * a test key, or the sandbox, which serves a tenant with no account of its own when the
 * instance runs it (PAYMENT_PROVIDER=sandbox). Without either, no payment can happen at all,
 * and no page claims a test.
 */
export function inTestMode(account: GuestRequest['account'], sandboxRuns: boolean): boolean {
  if (account?.provider === 'lyra' || account?.provider === 'stripe') return account.mode !== 'PRODUCTION';
  return sandboxRuns;
}
