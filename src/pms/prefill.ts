import type { SecretKeyRing } from '../secrets/index.ts';
import { ApaleoError, apaleoClient, describeAnswer } from './apaleo-client.ts';
import { readReservation } from './apaleo-wire.ts';
import { endpointOf } from './connection.ts';
import type { PmsRepository } from './pms-repository.ts';
import { formFromReservation } from './reservation-rule.ts';

/**
 * The new-request form filled from an Apaleo reservation (`GET /booking/v1/reservations/{id}`):
 * the guest, the dates and what is owed. A reservation of another property, or none, says so.
 */
export async function readAsForm(
  deps: { repo: PmsRepository; secretKeys: SecretKeyRing },
  tenantId: string,
  reservationId: string,
): Promise<{ form: Record<string, string> } | { problem: string }> {
  const c = await deps.repo.connection(tenantId);
  if (!c) return { problem: 'not connected to Apaleo' };
  try {
    const client = apaleoClient(endpointOf(deps.secretKeys, c), { timeoutMs: 5000 });
    const r = await client.call('GET', `/booking/v1/reservations/${encodeURIComponent(reservationId)}`);
    if (r.status === 404 || r.status === 400) return { problem: `no reservation "${reservationId}" in Apaleo` };
    if (r.status !== 200) return { problem: `Apaleo did not show the reservation (${describeAnswer(r)})` };
    const reservation = readReservation(r.body);
    if (!reservation) return { problem: 'Apaleo answered the reservation unreadably' };
    if (reservation.propertyId !== c.property_id) {
      return { problem: `reservation "${reservationId}" is of property ${reservation.propertyId}` };
    }
    return { form: formFromReservation(reservation) };
  } catch (err) {
    if (!(err instanceof ApaleoError)) throw err;
    return { problem: err.message };
  }
}
