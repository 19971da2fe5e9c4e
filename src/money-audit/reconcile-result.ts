export interface ReconcileResult {
  examined: number;
  settled: number;
  /** Settled as refused by the provider: nothing moved (a refused hold is a failed guarantee). */
  refused: number;
  not_done: number;
  unknown: number;
  given_back: number;
  claims_released: number;
  /** Ledger rows written before accounts were recorded, given the account that shows their transaction. */
  accounts_found: number;
  /** Requests touched in the check window (listed when it opened). */
  touched: number;
  /** Of these, how many are checked: by this run and by the earlier runs of the same window. */
  checked: number;
  /** The window is done: every request touched in it was checked (`checked` equals `touched`). */
  check_complete: boolean;
  /** Found by this run's pages. */
  mismatches: Mismatch[];
}

export interface ReconcileOptions {
  limit?: number;
  staleClaimSeconds?: number;
  /** The start of a new check window; the last day by default. */
  checkSince?: Date;
  /** Requests read and checked per page of the window. */
  checkPageSize?: number;
  /** Pages a run checks at most before it leaves the rest of the window to the next run. */
  checkPages?: number;
}

/** One request whose books differ from the provider's. */
export interface Mismatch {
  payment_request_id: string;
  reference: string | null;
  problem: string;
}

/** A run's counts before it starts. */
export function emptyResult(): ReconcileResult {
  return {
    examined: 0,
    settled: 0,
    refused: 0,
    not_done: 0,
    unknown: 0,
    given_back: 0,
    claims_released: 0,
    accounts_found: 0,
    touched: 0,
    checked: 0,
    check_complete: false,
    mismatches: [],
  };
}
