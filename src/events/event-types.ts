import { STATUSES, type Status } from '../domain/index.ts';

/**
 * Which event a status change is. By default `payment_request.<new status>`; a change whose
 * statuses and ledger row say more is named for it. Written once here: the list webhooks
 * subscribe to, and the SQL function the status_history trigger calls to type each event in
 * the statement that writes the change (`eventTypeFunctionSql`, named by a migration).
 */
const NAMED_CHANGES: readonly {
  type: string;
  from: Status;
  to: Status;
  ledgerKind: string;
  /** The ledger row's outcome, where the kind alone does not tell the change. */
  ledgerState?: 'succeeded' | 'refused';
}[] = [
  // A hold released when the guest arrived: the request is CANCELLED (the contract's status), but
  // nothing was charged and the stay goes on, which a PMS must not take for a cancellation.
  { type: 'released', from: 'AUTHORISED_TO_VALIDATE', to: 'CANCELLED', ledgerKind: 'release' },
  // A refund of part of what was captured: the request stays CAPTURED.
  { type: 'partially_refunded', from: 'CAPTURED', to: 'CAPTURED', ledgerKind: 'refund' },
  // The bank refused the guarantee's hold for good: the guest is asked for another card.
  { type: 'guarantee_failed', from: 'AUTHORISED', to: 'ERROR', ledgerKind: 'hold' },
  // A soft decline before the check-in day: the card stays, the next run tries again.
  { type: 'hold_declined', from: 'AUTHORISED', to: 'AUTHORISED', ledgerKind: 'hold' },
  // A hold renewed before it lapses: the request keeps its status with a new hold and expiry.
  {
    type: 'hold_renewed',
    from: 'AUTHORISED_TO_VALIDATE',
    to: 'AUTHORISED_TO_VALIDATE',
    ledgerKind: 'hold',
    ledgerState: 'succeeded',
  },
  // A renewal the bank refused: the old hold stays until it lapses, the guarantee has failed.
  {
    type: 'guarantee_failed',
    from: 'AUTHORISED_TO_VALIDATE',
    to: 'AUTHORISED_TO_VALIDATE',
    ledgerKind: 'hold',
    ledgerState: 'refused',
  },
];

/** Every event type, as webhooks subscribe to them. */
export const EVENT_TYPES: readonly string[] = [
  ...new Set([...STATUSES.map((s) => s.toLowerCase()), ...NAMED_CHANGES.map((c) => c.type), 'deleted', 'incident']),
].map((t) => `payment_request.${t}`);

/**
 * `payment_request_event_type(from_status, to_status, ledger_kind, ledger_state)`: the event
 * type of one history row, given the kind and state of the ledger row it names (null for none).
 * A CASE on its arguments alone, with no query inside, so PostgreSQL inlines it into the
 * trigger's statement: a SQL function with a subquery is not inlined, and is parsed and planned
 * again at every execution of the statement that calls it (0.64 ms a create, measured), which
 * the trigger runs once per statement that writes history.
 */
export function eventTypeFunctionSql(): string {
  const rules = NAMED_CHANGES.map(
    (c) =>
      `    WHEN from_status = '${c.from}' AND to_status = '${c.to}' AND ledger_kind = '${c.ledgerKind}'${
        c.ledgerState ? ` AND ledger_state = '${c.ledgerState}'` : ''
      }
    THEN 'payment_request.${c.type}'`,
  );
  return `CREATE OR REPLACE FUNCTION payment_request_event_type(from_status text, to_status text, ledger_kind text, ledger_state text)
RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
${rules.join('\n')}
    ELSE 'payment_request.' || lower(to_status) END
$$;`;
}
