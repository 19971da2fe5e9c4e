import type { LedgerEntry } from '../db/index.ts';
import { holdOperation, renewOperation, supersededReleaseOperation } from '../holds/index.ts';
import {
  captureOperation,
  giveBackOperation,
  type MoneyOperation,
  refundOperation,
  releaseOperation,
} from '../payment-requests/index.ts';

/** The operation whose record step a settled row takes. */
export function operationFor(entry: Pick<LedgerEntry, 'kind' | 'incident' | 'parent_id'>): MoneyOperation | undefined {
  if (entry.incident && (entry.kind === 'refund' || entry.kind === 'void')) return giveBackOperation;
  switch (entry.kind) {
    case 'capture':
      return captureOperation;
    case 'release':
      // A release naming a hold is of one a renewal replaced: the request's status stays.
      return entry.parent_id ? supersededReleaseOperation : releaseOperation;
    case 'refund':
      return refundOperation;
    case 'hold':
      // A hold naming another is its renewal.
      return entry.parent_id ? renewOperation : holdOperation;
    default:
      return undefined;
  }
}
