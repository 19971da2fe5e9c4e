import type { DevMailRow } from '../db/index.ts';
import { html, htmlDocument, type SafeHtml } from '../html/index.ts';

/** Who reads each kind: the hotel's own e-mails go to its contact address, the rest to the guest. */
const HOTEL_KINDS: ReadonlySet<string> = new Set([
  'guarantee_failed_hotel',
  'hold_declined_hotel',
  'daily_digest',
  'team_invitation',
]);

const STYLE = html`<style>
body { font-family: system-ui, sans-serif; margin: 0; color: #1b1b1f; background: #f3f4f6; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.4rem; overflow-wrap: anywhere; }
p.note { color: #3d4149; }
.table-wrap { overflow-x: auto; background: #ffffff; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 0.5rem; border-bottom: 1px solid #d4d4d8; vertical-align: top; }
td { overflow-wrap: anywhere; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1rem; background: #ffffff; padding: 0.75rem; }
dt { font-weight: 600; }
dd { margin: 0; overflow-wrap: anywhere; }
iframe { width: 100%; height: 36rem; border: 1px solid #d4d4d8; background: #ffffff; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #ffffff; padding: 0.75rem; border: 1px solid #d4d4d8; }
a { color: #12355b; }
</style>`;

function page(title: string, body: SafeHtml): string {
  return htmlDocument({
    lang: 'en',
    title: `${title} · payreq development mail`,
    head: STYLE,
    body: html`<main>${body}</main>`,
  }).value;
}

/** What became of a message: the outbox row's status, said plainly. */
function outcome(row: DevMailRow): string {
  if (row.status === 'sent') return 'sent';
  if (row.status === 'failed') return `not sent: ${row.last_error ?? 'failed'}`;
  if (row.status === 'expired') return `not sent, ${row.last_error ?? 'expired'}`;
  return 'logged, not sent (SMTP_URL is not set)';
}

const readerOf = (row: DevMailRow) => (HOTEL_KINDS.has(row.kind) ? 'the hotel' : 'the guest');

/** `/dev/mail`: every message kept, newest first. */
export function mailListPage(rows: readonly DevMailRow[]): string {
  const list =
    rows.length === 0
      ? html`<p>No e-mail yet. Create a request with the tenant's <code>confirmation_email</code> on, pay one, or register a card: each e-mail payreq sends shows here within a second.</p>`
      : html`<div class="table-wrap"><table>
<caption>E-mails, newest first</caption>
<thead><tr><th scope="col">Rendered (UTC)</th><th scope="col">For</th><th scope="col">To</th><th scope="col">Subject</th><th scope="col">Kind</th><th scope="col">Outcome</th></tr></thead>
<tbody>${rows.map(
          (r) =>
            html`<tr><td>${r.message.renderedAt.replace('T', ' ').slice(0, 19)}</td><td>${readerOf(r)}</td><td>${r.message.to}</td><td><a href="/dev/mail/${r.id}">${r.message.subject}</a></td><td><code>${r.kind}</code></td><td>${outcome(r)}</td></tr>\n`,
        )}</tbody></table></div>`;
  return page(
    'E-mails',
    html`<h1>E-mails payreq sent</h1>
<p class="note">Development only (NODE_ENV=development): each e-mail as the worker rendered it when it sent it, or logged it because SMTP_URL is not set. This page does not exist in production.</p>
${list}`,
  );
}

/** `/dev/mail/<id>`: one message, its HTML as the reader's mail program shows it, and its text. */
export function mailPage(row: DevMailRow): string {
  const m = row.message;
  return page(
    m.subject,
    html`<p><a href="/dev/mail">All e-mails</a></p>
<h1>${m.subject}</h1>
<dl>
<dt>From</dt><dd>${m.from.name} &lt;${m.from.address}&gt;</dd>
<dt>To</dt><dd>${m.to} (${readerOf(row)})</dd>
<dt>Rendered</dt><dd>${m.renderedAt} (UTC)</dd>
<dt>Outcome</dt><dd>${outcome(row)}</dd>
<dt>Kind</dt><dd><code>${row.kind}</code></dd>
<dt>Message-ID</dt><dd><code>${m.messageId}</code></dd>
</dl>
<h2>HTML</h2>
<iframe src="/dev/mail/${row.id}/html" sandbox="" title="The HTML part of ${m.subject}"></iframe>
<p><a href="/dev/mail/${row.id}/html">The HTML part alone</a></p>
<h2>Text</h2>
<pre>${m.text}</pre>`,
  );
}
