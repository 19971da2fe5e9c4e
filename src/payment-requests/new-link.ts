import { randomUUID } from 'node:crypto';
import type { PaymentRequestRow, Repositories } from '../db/index.ts';
import {
  type Actor,
  type CreatePaymentRequestInput,
  errors,
  fromMinorUnits,
  isReplaceable,
  REPLACEABLE_STATUSES,
} from '../domain/index.ts';
import type { PaymentRequestCommands, TenantContext } from './commands.ts';

export interface NewLinkDeps {
  repos: Pick<Repositories, 'paymentRequests' | 'idempotency'>;
  commands: Pick<PaymentRequestCommands, 'createWithKey'>;
}

/** The new request, and whether this call made it (false: an earlier call did, a double click). */
export interface NewLink {
  made: boolean;
  uuid: string;
  reference: string;
}

/**
 * The key the new request is created under, one per request replaced: a second click (or two at
 * once) finds the first's request instead of making another. It holds spaces, which no
 * Idempotency-Key of the API may, so no API call can ever take it.
 */
export function newLinkKey(oldId: string): string {
  return `new link for ${oldId}`;
}

/** The same request again: guest, amount, currency, type, reservation and its data (the stay's dates). */
export function sameRequest(old: PaymentRequestRow): CreatePaymentRequestInput {
  return {
    request_type: old.request_type,
    ...(old.amount > 0 ? { amount: fromMinorUnits(old.amount) } : {}),
    currency: old.currency,
    guest_email: old.guest_email,
    guest_first_name: old.guest_first_name,
    guest_last_name: old.guest_last_name,
    ...(old.guest_phone ? { guest_phone: old.guest_phone } : {}),
    language: old.language,
    reservation_ref: old.reservation_ref,
    reservation_data: old.reservation_data,
  };
}

/**
 * "Send a new link" on a REFUSED or EXPIRED request (both final): a new request made by the
 * API's own create (its checks, its reference, its payment link e-mail when the hotel e-mails
 * links), then the two linked both ways. Once per request: the create is keyed by the request
 * replaced, so a double click answers the first click's request. A request replaced already
 * answers its replacement, whatever its status now.
 */
export async function sendNewLink(
  deps: NewLinkDeps,
  t: TenantContext,
  old: PaymentRequestRow,
  actor: Actor,
): Promise<NewLink> {
  const { repos, commands } = deps;
  if (old.replaced_by) {
    const made = await repos.paymentRequests.find(t.tenantId, old.replaced_by);
    if (made) return { made: false, uuid: made.id, reference: made.reference };
  }
  if (!isReplaceable(old.status)) throw errors.invalidStatus('send a new link for', old.status, REPLACEABLE_STATUSES);
  const key = newLinkKey(old.id);
  const placeholder = randomUUID();
  const create = () =>
    commands.createWithKey(t, sameRequest(old), actor, (uuid) => ({
      key,
      fingerprint: key,
      template: JSON.stringify({ uuid, reference: placeholder }),
      placeholder,
    }));
  let created = await create();
  let found = created ?? (await madeEarlier(deps, t.tenantId, key));
  if (!created && !(await repos.paymentRequests.find(t.tenantId, found.uuid))) {
    // The request made earlier was deleted since (which unlinked it): its key is freed, a new one made.
    await repos.idempotency.forget(t.tenantId, key);
    created = await create();
    found = created ?? (await madeEarlier(deps, t.tenantId, key));
  }
  // Linked after the create (its one statement is the API's): a link lost to a crash between
  // the two is made by the next click, which finds the request under the key.
  await repos.paymentRequests.linkReplacement(t.tenantId, old.id, found.uuid);
  return { made: created !== undefined, uuid: found.uuid, reference: found.reference };
}

/** The request an earlier call made under the key. */
async function madeEarlier(
  deps: NewLinkDeps,
  tenantId: string,
  key: string,
): Promise<{ uuid: string; reference: string }> {
  const stored = await deps.repos.idempotency.find(tenantId, key);
  const body = stored?.response_body
    ? (JSON.parse(stored.response_body) as { uuid?: unknown; reference?: unknown })
    : {};
  if (typeof body.uuid !== 'string' || typeof body.reference !== 'string') {
    // The key is held but names nothing yet: the other call is still making it.
    throw errors.operationInProgress('new_link');
  }
  return { uuid: body.uuid, reference: body.reference };
}
