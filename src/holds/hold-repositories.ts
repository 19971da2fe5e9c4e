import type { Queryable } from '../db/index.ts';
import { type DeferredHoldsRepository, deferredHoldsRepository } from './deferred-holds-repository.ts';
import { type HoldRenewalsRepository, holdRenewalsRepository } from './hold-renewals-repository.ts';

/** The SQL only the hold jobs run, built once with the context (a test may hand the jobs its own). */
export interface HoldRepositories {
  deferred: DeferredHoldsRepository;
  renewals: HoldRenewalsRepository;
}

export function holdRepositories(db: Queryable): HoldRepositories {
  return { deferred: deferredHoldsRepository(db), renewals: holdRenewalsRepository(db) };
}
