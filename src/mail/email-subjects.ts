import type { EmailSubjectRow, emailOutboxRepository } from '../db/index.ts';
import { holdDaysTold } from '../providers/index.ts';

/** The request and tenant settings an e-mail is rendered from. */
export type EmailSubject = Omit<EmailSubjectRow, 'account_provider'>;

/**
 * What each request's e-mail is rendered from, by request id. The guest is told how long a
 * hold may last at most: no longer than the provider allows.
 */
export async function emailSubjects(
  outbox: Pick<ReturnType<typeof emailOutboxRepository>, 'subjects'>,
  ids: string[],
): Promise<Map<string, EmailSubject>> {
  const rows: EmailSubjectRow[] = await outbox.subjects(ids);
  return new Map(
    rows.map(({ account_provider, ...row }) => [
      row.id,
      { ...row, hold_days: holdDaysTold(row.hold_days, account_provider, row.card_network) },
    ]),
  );
}
