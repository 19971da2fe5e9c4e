import type { RequestType, Source, Status } from '../domain/index.ts';
import { PG, pgCode, type Queryable } from './database.ts';
import { GUARANTEE_FAILED } from './guarantee-failed.ts';
import type { PaymentRequestRow, RequestSummaryFields } from './payment-requests-repository.ts';
import { type WhereBuilder, whereBuilder } from './where-builder.ts';

/** The back office's reads of payment requests: across tenants for a superuser, with search. */
export interface ControlListFilter {
  /** undefined: every tenant (a superuser). */
  tenantId?: string;
  status?: Status;
  requestType?: RequestType;
  /**
   * What staff typed (case does not matter): the start of a reference, reservation reference
   * or e-mail when it looks like one (see `list`), else a substring of those and the name.
   */
  text?: string;
  createdFrom?: Date;
  createdBefore?: Date;
  checkinFrom?: string;
  checkinTo?: string;
  /** Only failed guarantees still waiting for a new card (ERROR after a refused hold). */
  guaranteeFailed?: boolean;
  before?: { createdAt: Date; id: string };
  limit: number;
}

/** What the request's page shows beyond the row: its hotel, and how its guarantee fared. */
export type ControlDetailRow = PaymentRequestRow & {
  tenant_name: string;
  tenant_timezone: string;
  checkin: string | null;
  /** E-mails that asked the guest for another card after a refused hold. */
  guarantee_asks: number;
  last_hold_error: string | null;
};

export interface ControlListRow extends RequestSummaryFields {
  tenant_name: string;
  /** The hotel's time zone: its times are shown in it. */
  tenant_timezone: string;
  checkin: string | null;
  created_at: Date;
  /** Set once a hold was placed: a CANCELLED request with one was freed by a release. */
  hold_expires_at: Date | null;
}

export interface LedgerRow {
  id: string;
  kind: string;
  amount: number;
  currency: string;
  provider: string;
  provider_transaction_id: string | null;
  state: string;
  incident: string | null;
  source: string;
  actor: string | null;
  error: string | null;
  created_at: Date;
  updated_at: Date;
  /** The hold this row renews or releases, for a renewal's moves. */
  parent_id: string | null;
  /** A placed hold's end. */
  hold_expires_at: Date | null;
}

export interface HistoryRow {
  from_status: Status | null;
  to_status: string;
  source: Source;
  actor: string | null;
  detail: Record<string, unknown> | null;
  created_at: Date;
  /** The money ledger's row of the operation that made the change (a hold, capture, refund…). */
  ledger_id: string | null;
}

/**
 * The searches read the request's text from payment_request_search, kept lowered there by
 * triggers (migration 0153) so that the many status changes of a request do not each write its
 * search index entries again. The words search: a substring of reference, reservation, name and
 * e-mail, found through the trigram index.
 */
const WORDS_MATCH = 's.words LIKE ?';

/**
 * The identifier search: the start of one of these, each a range in its btree
 * (text_pattern_ops).
 */
const PREFIX_MATCH = '(s.reference LIKE ? OR s.reservation_ref LIKE ? OR s.guest_email LIKE ?)';

/**
 * Where a search reads its text: `joined`, the caller's FROM is `listSource`'s, the search
 * table joined to `p` (the list and the requests export, which page through its order);
 * `subquery`, the matching requests are a semi-join (the ledger export, the totals).
 */
export type SearchSource = 'joined' | 'subquery';

/** The requests whose search text matches; one hotel's are filtered in the search table itself. */
function searchCondition(w: WhereBuilder, f: ControlListFilter, match: SearchMatch, onSearchTable: boolean): void {
  const text = likeEscape(f.text?.toLowerCase() ?? '');
  const found = match === 'prefix' ? PREFIX_MATCH : WORDS_MATCH;
  const values = match === 'prefix' ? [`${text}%`, `${text}%`, `${text}%`] : [`%${text}%`];
  if (onSearchTable) {
    w.and(found, ...values);
    return;
  }
  const tenant = f.tenantId ? ' AND s.tenant_id = ?' : '';
  w.and(
    `p.id IN (SELECT s.payment_request_id FROM payment_request_search s WHERE ${found}${tenant})`,
    ...values,
    ...(f.tenantId ? [f.tenantId] : []),
  );
}

/**
 * Whether a list reads the search table first: with a text, and across every hotel. One hotel's
 * list without a text reads its own index of `payment_requests`.
 */
const searchTableLeads = (f: ControlListFilter, match: SearchMatch | undefined) => Boolean(match) || !f.tenantId;

/**
 * The FROM of a list of requests in page order. With a text, or across every hotel, the search
 * table leads: a page is read in its own order (one hotel's key, or every hotel's by date) or,
 * for a text few requests hold, through the text's indexes, a choice the planner makes on that
 * one table's statistics; each request of the page is then read by its id. The hotel is named
 * on the search table only (`requestConditions`): named on both tables, the planner takes the
 * two conditions for independent ones and expects a join of a few rows, so it sorts every
 * match of a common word. The triggers keep a search row's hotel and date the request's, and
 * `ofTenant` checks every row read this way.
 */
export function listSource(
  f: ControlListFilter,
  match: SearchMatch | undefined,
): { from: string; createdAt: string; id: string } {
  if (!searchTableLeads(f, match)) return { from: 'payment_requests p', createdAt: 'p.created_at', id: 'p.id' };
  return {
    from: 'payment_request_search s JOIN payment_requests p ON p.id = s.payment_request_id',
    createdAt: 's.created_at',
    id: 's.payment_request_id',
  };
}

/** The rows of the filter's hotel only: a search row that disagreed with its request is left out. */
export function ofTenant<R extends { tenant_id: string }>(rows: R[], tenantId: string | undefined): R[] {
  return tenantId ? rows.filter((r) => r.tenant_id === tenantId) : rows;
}

/**
 * Text that names one request rather than a guest: it holds a digit or an '@' (a reference,
 * a reservation number, an e-mail address). Names hold neither.
 */
export const looksLikeIdentifier = (text: string) => /[0-9@]/.test(text);

/**
 * How the text was matched: `prefix`, the start of a reference, reservation reference or
 * e-mail; `contains`, anywhere in those and the guest's name; undefined without a text.
 */
export type SearchMatch = 'prefix' | 'contains';

export interface ControlListPage {
  rows: ControlListRow[];
  match?: SearchMatch;
}

const LIST_COLUMNS = `p.id, p.tenant_id, t.name AS tenant_name, t.timezone AS tenant_timezone, p.reference, p.request_type, p.status, p.amount,
  p.amount_captured, p.amount_refunded, p.currency, p.guest_first_name, p.guest_last_name, p.guest_email,
  p.reservation_ref, to_char(p.checkin, 'YYYY-MM-DD') AS checkin, p.created_at,
  p.hold_expires_at`;

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The list's filters on the request itself (`p`), all but its creation dates: an export of
 * ledger movements reads those dates as the movements' own. `source`: `joined` when the FROM
 * is `listSource`'s (the hotel and the text are then conditions on `s` where it leads),
 * `subquery` when it is the requests alone or joined to the ledger.
 */
export function requestConditions(
  w: WhereBuilder,
  f: ControlListFilter,
  match: SearchMatch | undefined,
  source: SearchSource = 'subquery',
): void {
  const onSearchTable = source === 'joined' && searchTableLeads(f, match);
  if (f.tenantId) w.and(onSearchTable ? 's.tenant_id = ?' : 'p.tenant_id = ?', f.tenantId);
  if (f.status) w.and('p.status = ?', f.status);
  if (f.requestType) w.and('p.request_type = ?', f.requestType);
  if (match) searchCondition(w, f, match, onSearchTable);
  if (f.checkinFrom) w.and('p.checkin >= ?::date', f.checkinFrom);
  if (f.checkinTo) w.and('p.checkin <= ?::date', f.checkinTo);
  // The condition of the partial index made for failed guarantees.
  if (f.guaranteeFailed) w.and(GUARANTEE_FAILED('p'));
}

export function controlRequestsRepository(db: Queryable) {
  /**
   * Only the filters given appear in the SQL, and the statement is planned with its values
   * each time: a needle is found through an index of the text, a word every row holds by
   * walking the (tenant, created_at) index and stopping at the page's end.
   */
  async function select(
    f: ControlListFilter,
    match: SearchMatch | undefined,
    opts: { keyset: boolean; limit: number },
  ): Promise<ControlListRow[]> {
    const w = whereBuilder();
    const src = listSource(f, match);
    requestConditions(w, f, match, 'joined');
    if (f.createdFrom) w.and(`${src.createdAt} >= ?`, f.createdFrom);
    if (f.createdBefore) w.and(`${src.createdAt} < ?`, f.createdBefore);
    if (f.before && opts.keyset) {
      w.and(`(${src.createdAt}, ${src.id}) < (?, ?::uuid)`, f.before.createdAt, f.before.id);
    }
    const r = await db.query<ControlListRow>(
      `SELECT ${LIST_COLUMNS} FROM ${src.from} JOIN tenants t ON t.id = p.tenant_id ${w.clause}
        ORDER BY ${src.createdAt} DESC, ${src.id} DESC LIMIT ${w.param(opts.limit)}`,
      w.params,
      { planWithValues: true },
    );
    return ofTenant(r.rows, f.tenantId);
  }

  return {
    /**
     * Newest first, keyset on (created_at, id). A text that looks like an identifier is first
     * matched from the start of the reference, reservation reference and e-mail (an index
     * range, as fast at a million rows as at a thousand). Only when no request in the filters
     * starts with it is it looked for anywhere, as words are: the choice is made on the whole
     * filtered set, not the page, so every page of one search matches the same way.
     */
    async list(f: ControlListFilter): Promise<ControlListPage> {
      const page = { keyset: true, limit: f.limit };
      if (f.text && looksLikeIdentifier(f.text)) {
        const rows = await select(f, 'prefix', page);
        if (rows.length > 0) return { rows, match: 'prefix' };
        // Past the last page of a prefix search: still a prefix search, with nothing left.
        if (f.before && (await select(f, 'prefix', { keyset: false, limit: 1 })).length > 0) {
          return { rows, match: 'prefix' };
        }
      }
      const match = f.text ? 'contains' : undefined;
      return { rows: await select(f, match, page), match };
    },

    /**
     * How the list matches the filter's text, decided as `list` decides it: an export or a
     * total then covers exactly the rows the list pages through.
     */
    async searchMatch(f: ControlListFilter): Promise<SearchMatch | undefined> {
      if (!f.text) return undefined;
      if (looksLikeIdentifier(f.text)) {
        const any = await select({ ...f, before: undefined }, 'prefix', { keyset: false, limit: 1 });
        if (any.length > 0) return 'prefix';
      }
      return 'contains';
    },

    /** One request in the user's scope (tenantId undefined: any tenant); undefined otherwise. */
    async find(id: string, tenantId: string | undefined): Promise<ControlDetailRow | undefined> {
      const r = await db.query<ControlDetailRow>(
        `SELECT p.*, to_char(p.checkin, 'YYYY-MM-DD') AS checkin, t.name AS tenant_name, t.timezone AS tenant_timezone
           FROM payment_requests p JOIN tenants t ON t.id = p.tenant_id
          WHERE p.id = $1 AND ($2::uuid IS NULL OR p.tenant_id = $2)`,
        [id, tenantId ?? null],
      );
      const row = r.rows[0];
      if (row) delete (row as { card_token?: unknown }).card_token;
      return row;
    },

    async history(id: string): Promise<HistoryRow[]> {
      const r = await db.query<HistoryRow>(
        `SELECT from_status, to_status, source, actor, detail, created_at, ledger_id::text AS ledger_id
           FROM status_history WHERE payment_request_id = $1 ORDER BY id`,
        [id],
      );
      return r.rows;
    },

    /** Every provider operation on the request; empty where the ledger table does not exist yet. */
    async ledger(id: string): Promise<LedgerRow[]> {
      try {
        const r = await db.query<LedgerRow>(
          `SELECT id::text AS id, kind, amount, currency, provider, provider_transaction_id, state, incident, source,
                  actor, error, created_at, updated_at, parent_id::text AS parent_id, hold_expires_at
             FROM money_ledger WHERE payment_request_id = $1 ORDER BY created_at, money_ledger.id`,
          [id],
        );
        return r.rows;
      } catch (err) {
        if (pgCode(err) === PG.undefinedTable) return [];
        throw err;
      }
    },

    /**
     * Queues the payment-link e-mail again. `nonce` comes from the form, so a double submit
     * or a reload queues it once (the outbox's cause is unique).
     */
    /**
     * A guest's e-mail address corrected (a typo the guest pointed out): the address the request
     * had before, or undefined when it is not the tenant's. Its e-mails read the address when
     * they are sent, so one queued after this goes to the new one.
     */
    async correctGuestEmail(tenantId: string, id: string, email: string): Promise<{ before: string } | undefined> {
      const r = await db.query<{ before: string }>(
        `UPDATE payment_requests p SET guest_email = $3, updated_at = now()
           FROM (SELECT id, guest_email FROM payment_requests WHERE id = $2 AND tenant_id = $1 FOR UPDATE) old
          WHERE p.id = old.id
          RETURNING old.guest_email AS before`,
        [tenantId, id, email],
      );
      return r.rows[0];
    },

    async queueLinkEmail(tenantId: string, id: string, nonce: string): Promise<boolean> {
      const r = await db.query(
        `INSERT INTO email_outbox (tenant_id, payment_request_id, kind, cause)
         VALUES ($1, $2, 'payment_link', $3) ON CONFLICT (cause) DO NOTHING`,
        [tenantId, id, `payment_link_resend:${id}:${nonce}`],
      );
      return (r.rowCount ?? 0) > 0;
    },
  };
}
export type ControlRequestsRepository = ReturnType<typeof controlRequestsRepository>;
