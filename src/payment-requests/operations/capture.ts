import { statusMoveOperation } from './status-move.ts';

/** Capture (full or partial) of a hold: AUTHORISED_TO_VALIDATE becomes CAPTURED. */
export const captureOperation = statusMoveOperation('capture');
