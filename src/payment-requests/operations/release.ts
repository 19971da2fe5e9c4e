import { statusMoveOperation } from './status-move.ts';

/** Release of a hold without debit: AUTHORISED_TO_VALIDATE becomes CANCELLED. */
export const releaseOperation = statusMoveOperation('release');
