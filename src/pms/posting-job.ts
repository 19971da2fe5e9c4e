import { networkOfCardNumber } from '../domain/index.ts';
import type { ClaimedJob, Finish } from '../queue/index.ts';
import type { SecretKeyRing } from '../secrets/index.ts';
import { type ApaleoClient, ApaleoError, type ApaleoFailure, apaleoClient, failureOf } from './apaleo-client.ts';
import {
  mainGuestFolio,
  paymentMethodOf,
  readCreatedId,
  readFolioEntries,
  readFolios,
  readReservation,
  toApaleoAmount,
} from './apaleo-wire.ts';
import { endpointOf } from './connection.ts';
import type { PmsRepository, PostingOutcome, PostingWork } from './pms-repository.ts';
import { nextAttempt } from './retry-schedule.ts';

export type PostingResult = 'posted' | 'failed' | 'skipped' | 'retry' | 'gone';

export interface PostingDeps {
  repo: PmsRepository;
  secretKeys: SecretKeyRing;
}

/** What the folio shows of each operation: the request's reference and the ledger row, distinct for each. */
export const receiptOf = (p: Pick<PostingWork, 'reference' | 'ledger_id'>) => `${p.reference}/${p.ledger_id}`;

/**
 * Apaleo's Idempotency-Key: the operation's own key. A posting retried by hand after a refusal
 * (nothing was posted) gets the key with its round: Apaleo may keep the refusal under the first.
 */
export const keyOf = (p: Pick<PostingWork, 'idempotency_key' | 'retries'>) =>
  p.retries === 0 ? p.idempotency_key : `${p.idempotency_key}:retry-${p.retries}`;

/** An attempt's end before the job's finish: posted, not for us (skipped), or refused for good. */
type Decided = Extract<PostingOutcome, { state: 'posted' | 'failed' | 'skipped' }>;

const enc = encodeURIComponent;

/**
 * One attempt at one posting: the reservation read (is it one of the connected property's?), its
 * main guest folio found, and the payment or refund posted there with the operation's key as
 * Apaleo's Idempotency-Key. An attempt after one whose answer may have been lost first reads the
 * folio's payments (or refunds) for this operation's receipt: found, it is posted already.
 */
async function attempt(client: ApaleoClient, work: PostingWork, readBackFirst: boolean): Promise<Decided> {
  const connection = work.connection;
  if (!connection) throw new Error('unreachable: a posting attempted without a connection');
  const reservation = await client.call('GET', `/booking/v1/reservations/${enc(work.reservation_id)}`);
  // Apaleo has no such reservation: the request's reference is not one of its reservations.
  if (reservation.status === 404 || reservation.status === 400 || reservation.status === 422) {
    return { state: 'skipped', reason: `"${work.reservation_id}" is not a reservation in Apaleo` };
  }
  if (reservation.status !== 200) throw new ApaleoError(failureOf(reservation, 'GET'));
  const r = readReservation(reservation.body);
  if (!r)
    throw new ApaleoError({
      kind: 'unavailable',
      message: 'Apaleo answered a reservation unreadably',
      maybeSent: false,
    });
  if (r.propertyId !== connection.property_id) {
    return {
      state: 'skipped',
      reason: `reservation "${r.id}" is of property ${r.propertyId}, not of ${connection.property_id}`,
    };
  }
  const folios = await client.call('GET', '/finance/v1/folios', { query: { reservationIds: r.id } });
  if (folios.status !== 200 && folios.status !== 204) throw new ApaleoError(failureOf(folios, 'GET'));
  const list = readFolios(folios.body);
  if (!list)
    throw new ApaleoError({ kind: 'unavailable', message: 'Apaleo answered the folios unreadably', maybeSent: false });
  const folio = mainGuestFolio(list, r.id);
  if (!folio) return { state: 'failed', reason: `Apaleo shows no main guest folio for reservation "${r.id}"` };

  const kind = work.kind === 'refund' ? 'refunds' : 'payments';
  const receipt = receiptOf(work);
  const method = paymentMethodOf(work.card_network ?? (work.masked_pan ? networkOfCardNumber(work.masked_pan) : null));
  if (readBackFirst) {
    const seen = await client.call('GET', `/finance/v1/folios/${enc(folio.id)}/${kind}`);
    if (seen.status !== 200 && seen.status !== 204) throw new ApaleoError(failureOf(seen, 'GET'));
    const entries = readFolioEntries(seen.body, kind);
    if (!entries)
      throw new ApaleoError({
        kind: 'unavailable',
        message: `Apaleo answered the ${kind} unreadably`,
        maybeSent: true,
      });
    const found = entries.find((e) => e.receipt === receipt);
    if (found) return { state: 'posted', apaleoId: found.id, folioId: folio.id, method };
  }
  // A folio refund, never `…/payments/{id}/refunds`, which would refund at Apaleo's own payment provider too.
  const posted = await client.call('POST', `/finance/v1/folios/${enc(folio.id)}/${kind}`, {
    idempotencyKey: keyOf(work),
    body: { method, amount: { amount: toApaleoAmount(work.amount), currency: work.currency }, receipt },
  });
  if (posted.status === 200 || posted.status === 201) {
    const id = readCreatedId(posted.body);
    if (id) return { state: 'posted', apaleoId: id, folioId: folio.id, method };
    // Taken, its id unreadable: read back by receipt next time.
    throw new ApaleoError({ kind: 'unavailable', message: 'Apaleo took the posting without its id', maybeSent: true });
  }
  const failure = failureOf(posted, 'POST');
  if (failure.kind === 'refused') return { state: 'failed', reason: failure.message, folioId: folio.id };
  throw new ApaleoError(failure);
}

/**
 * Runs the job of posting `id` and finishes it: done (posted, skipped, or failed for good,
 * recorded on the posting), or postponed to its next try (back-off, Retry-After: the kind keeps
 * its own schedule, the posting counts the attempts).
 */
export async function runPostingJob(
  deps: PostingDeps,
  id: string,
  job: ClaimedJob,
  finish: Finish,
  now: Date,
): Promise<PostingResult> {
  const work = await deps.repo.work(id);
  if (work?.state !== 'pending') {
    await finish.done();
    return 'gone';
  }
  const end = async (o: Decided): Promise<PostingResult> => {
    await finish.done((tx) => deps.repo.record(tx, id, o));
    return o.state;
  };
  if (!work.connection) return end({ state: 'failed', reason: 'not connected to Apaleo' });
  let failure: ApaleoFailure;
  try {
    const client = apaleoClient(endpointOf(deps.secretKeys, work.connection));
    // A claim before this one that never finished (a worker that died mid-call) may have posted too.
    return await end(await attempt(client, work, work.maybe_sent || job.attempts > 1));
  } catch (err) {
    if (!(err instanceof ApaleoError)) throw err;
    failure = err.failure;
  }
  if (failure.kind !== 'unavailable') return end({ state: 'failed', reason: failure.message });
  const next = nextAttempt({
    failures: work.attempts + 1,
    firstDueAt: work.first_due_at,
    now,
    ...(failure.retryAfterMs !== undefined ? { retryAfterMs: failure.retryAfterMs } : {}),
  });
  if (next.giveUp) {
    return end({
      state: 'failed',
      reason: `Apaleo could not be reached for 3 days: ${failure.message}`,
      maybeSent: failure.maybeSent,
    });
  }
  await finish.postpone(next.at, (tx) =>
    deps.repo.record(tx, id, {
      state: 'pending',
      reason: failure.message,
      nextAttemptAt: next.at,
      maybeSent: failure.maybeSent,
    }),
  );
  return 'retry';
}
