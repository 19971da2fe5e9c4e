import type { ReminderHistoryRow } from '../../db/index.ts';
import { html, type SafeHtml } from '../../html/index.ts';
import { formatDateTime, type PageContext } from '../shell/index.ts';
import { TODAY_MESSAGES } from './words.ts';

/**
 * A request's reminders as rows of its history table ("Reminder 1 sent"), each at the time it
 * was sent (or queued, while it waits). They are e-mails, not status changes: they live in the
 * outbox, not in the status history, so no event or webhook is made of them.
 */
export function reminderHistoryRows(
  ctx: PageContext,
  rows: readonly ReminderHistoryRow[],
  timeZone: string,
  /** The history table's column headings, each cell's label on a phone. */
  labels: { when: string; from: string; to: string; money: string; source: string; who: string },
): { at: Date; row: SafeHtml }[] {
  const t = TODAY_MESSAGES[ctx.language];
  return rows.map((r) => {
    const at = new Date(r.sent_at ?? r.created_at);
    const what =
      r.status === 'sent'
        ? t.reminderSent(r.reminder_number)
        : r.status === 'pending'
          ? t.reminderQueued(r.reminder_number)
          : t.reminderNotSent(r.reminder_number);
    return {
      at,
      row: html`<tr class="reminder"><td data-label="${labels.when}">${formatDateTime(at, ctx, timeZone)}</td><td data-label="${labels.from}">—</td>
<td data-label="${labels.to}">${what}${r.status === 'failed' && r.last_error ? html`<br><small>${r.last_error}</small>` : ''}</td><td data-label="${labels.money}" class="num"></td><td data-label="${labels.source}">${t.reminderSource}</td><td data-label="${labels.who}"></td></tr>`,
    };
  });
}
