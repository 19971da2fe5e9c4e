import { countOpenBooksIncidents } from './books-repository.ts';
import type { Queryable } from './database.ts';

/** What waits in the shared database, as the metrics show it. */
export interface ServiceBacklogs {
  /** E-mails waiting to be sent. */
  emailsPending: number;
  /** Age of the oldest e-mail waiting, in seconds (0 when none). */
  oldestEmailSeconds: number;
  /** Money ledger rows whose outcome at the provider is unknown. */
  ledgerInDoubt: number;
  /** Requests whose books disagree with the provider's view (open books incidents). */
  booksDisagreements: number;
}

/** Reads the backlogs (e-mails waiting, money in doubt) in a few cheap counts. */
export async function readServiceBacklogs(q: Queryable): Promise<ServiceBacklogs> {
  const mail = await q.query<{ n: number; age: number | null }>(
    `SELECT count(*)::int AS n, EXTRACT(EPOCH FROM now() - min(created_at))::float8 AS age
     FROM email_outbox WHERE status = 'pending'`,
  );
  return {
    emailsPending: mail.rows[0]?.n ?? 0,
    oldestEmailSeconds: Math.max(0, mail.rows[0]?.age ?? 0),
    ledgerInDoubt: await ledgerInDoubt(q),
    booksDisagreements: await countOpenBooksIncidents(q),
  };
}

/** The ledger table may not exist yet in this schema version: then nothing is in doubt. */
async function ledgerInDoubt(q: Queryable): Promise<number> {
  const present = await q.query<{ present: boolean }>("SELECT to_regclass('money_ledger') IS NOT NULL AS present");
  if (!present.rows[0]?.present) return 0;
  const r = await q.query<{ n: number }>("SELECT count(*)::int AS n FROM money_ledger WHERE state = 'in_doubt'");
  return r.rows[0]?.n ?? 0;
}
