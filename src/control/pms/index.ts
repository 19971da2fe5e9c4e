// The hotel's own system (Apaleo) in the back office: the settings page's section, a request's
// postings, Today's refused postings, the new request filled from a reservation (docs/apaleo.md).
import type { Database } from '../../db/index.ts';
import { type PostingRow, pmsRepository, readAsForm } from '../../pms/index.ts';
import type { SecretKeyRing } from '../../secrets/index.ts';

export { pmsRoutes, pmsSettingsView } from './routes.ts';
export {
  failedPostingsSection,
  type PmsSettingsView,
  pmsSettingsSection,
  prefillSection,
  requestPostingsSection,
} from './sections.ts';
export { PMS_MESSAGES } from './words.ts';

/** What these reads need of the service's context. */
interface PmsReads {
  db: Database;
  secretKeys: SecretKeyRing;
}

/** A request's postings on its Apaleo folio. */
export function requestPostings(payreq: PmsReads, tenantId: string, requestId: string): Promise<PostingRow[]> {
  return pmsRepository(payreq.db).forRequest(tenantId, requestId);
}

/** The postings Apaleo refused for good; undefined for a hotel never connected that has none (no section). */
export async function failedPostings(payreq: PmsReads, tenantId: string): Promise<PostingRow[] | undefined> {
  const repo = pmsRepository(payreq.db);
  const failed = await repo.list(tenantId, { failed: true, limit: 50 });
  if (failed.length > 0) return failed;
  return (await repo.connection(tenantId)) ? [] : undefined;
}

/** Whether the hotel is connected to Apaleo (the new request's "from a reservation" is offered). */
export async function pmsConnected(payreq: PmsReads, tenantId: string): Promise<boolean> {
  return (await pmsRepository(payreq.db).connection(tenantId)) !== undefined;
}

/** The new request's fields from an Apaleo reservation, or why none. */
export function prefillFromReservation(payreq: PmsReads, tenantId: string, reservationId: string) {
  return readAsForm({ repo: pmsRepository(payreq.db), secretKeys: payreq.secretKeys }, tenantId, reservationId);
}
