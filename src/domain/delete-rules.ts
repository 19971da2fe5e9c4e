import { STATUSES, type Status } from './statuses.ts';

/**
 * A request may be deleted unless money is held or has moved. Returns why not,
 * or undefined when deletion is allowed.
 */
export function whyNotDeletable(status: Status): string | undefined {
  switch (status) {
    case 'AUTHORISED_TO_VALIDATE':
      return 'an amount is held on the card; release or capture it first';
    case 'CAPTURED':
    case 'REFUNDED':
      return 'money has moved; the request is kept for accounting (refund in the administration interface)';
    default:
      return undefined;
  }
}

export const DELETABLE_STATUSES: readonly Status[] = STATUSES.filter((s) => whyNotDeletable(s) === undefined);
