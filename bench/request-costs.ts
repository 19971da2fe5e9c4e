import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config/index.ts';
import { type Database, type Queryable, repositories } from '../src/db/index.ts';
import { createDeferredPayments, deferredHoldsRepository } from '../src/holds/index.ts';
import { SANDBOX_PAY_PATH, TEST_CARDS } from '../src/providers/sandbox/index.ts';
import { CREATE_BODY } from './create.ts';
import { apiHeaders, type Engine, freshDatabase, makeTenants, openMigrated, SECRET_KEY } from './environment.ts';
import { seedRequests } from './growth.ts';
import { startPrivatePostgres } from './private-postgres.ts';
import { statementStatistics } from './statement-statistics.ts';

/**
 * What one request costs the database, counted rather than timed, so a change shows its cost
 * whatever the machine is doing: the statements the service sends (BEGIN and COMMIT apart),
 * its round trips (every one of them: on PostgreSQL each is a wait on the network), its
 * transactions, and the rows it leaves written (inserted or updated, triggers' rows included),
 * by table. The sandbox provider shares the database: what it runs stands for a remote
 * provider's work, so its statements and rows are counted apart.
 */
export interface RequestCost {
  operation: string;
  /** How many operations the figures are the mean of. */
  samples: number;
  statements: number;
  roundTrips: number;
  transactions: number;
  rowsWritten: number;
  byTable: Record<string, number>;
  sandbox: { roundTrips: number; rowsWritten: number };
  /**
   * CPU of this process per operation (µs): the app, its driver, and the in-process request it
   * is sent by (`inject`, no socket); for capture, refund and the job, the sandbox's code too.
   */
  serviceCpuUs: number;
  /** What PostgreSQL spent on it, from `pg_stat_statements`; null where it is not loaded (PGlite). */
  database: DatabaseCost | null;
}

/** Per operation, the sandbox's statements apart (they stand for a remote provider's work). */
export interface DatabaseCost {
  /** Execution time of the statements the service sent (triggers' work included), µs. */
  execUs: number;
  /** Planning the statements the service sent, µs (not in `execUs`). */
  planUs: number;
  /** Of which the statements run inside triggers' functions, µs. */
  triggerStatementsUs: number;
  /** WAL written: bytes, records (a row or an index entry is a record), full-page images. */
  walBytes: number;
  walRecords: number;
  walFpi: number;
  /** Buffers read (hit or read) and dirtied. */
  buffers: number;
  dirtied: number;
  /** The statements that cost the most, µs per operation each. */
  top: {
    statement: string;
    toplevel: boolean;
    us: number;
    planUs: number;
    calls: number;
    walBytes: number;
    walRecords: number;
  }[];
  /** The sandbox's statements, µs per operation. */
  sandboxUs: number;
}

interface Counts {
  statements: number;
  roundTrips: number;
  transactions: number;
  sandboxRoundTrips: number;
}

const isSandbox = (sql: string) => /\bsandbox_/.test(sql);

/** The database as the app sees it, counting what goes through it. */
function counting(db: Database): { db: Database; counts: Counts } {
  const counts: Counts = { statements: 0, roundTrips: 0, transactions: 0, sandboxRoundTrips: 0 };
  const wrap = (q: Queryable, seen?: { sandbox: boolean }): Queryable => ({
    query(sql, params, options) {
      if (isSandbox(sql)) {
        counts.sandboxRoundTrips++;
        if (seen) seen.sandbox = true;
      } else {
        counts.statements++;
        counts.roundTrips++;
      }
      return q.query(sql, params, options);
    },
  });
  const outer = wrap(db);
  const wrapped: Database = {
    engine: db.engine,
    query: outer.query,
    async transaction(fn, options) {
      const seen = { sandbox: false };
      try {
        return await db.transaction((tx) => fn(wrap(tx, seen)), options);
      } finally {
        // BEGIN and COMMIT (or ROLLBACK): the provider's when its statements ran in it.
        if (seen.sandbox) counts.sandboxRoundTrips += 2;
        else {
          counts.roundTrips += 2;
          counts.transactions++;
        }
      }
    },
    ...(db.listen ? { listen: db.listen.bind(db) } : {}),
    close: () => db.close(),
  };
  return { db: wrapped, counts };
}

/**
 * Rows written since `marker` (a transaction id taken before): every row version whose xmin is
 * younger, in each table. An update leaves a new version, so it counts; a row written twice
 * counts once; deletes are not seen (none of the measured requests deletes).
 */
async function rowsSince(db: Database, marker: string): Promise<Record<string, number>> {
  const tables = await db.query<{ t: string }>(
    `SELECT relname AS t FROM pg_stat_user_tables WHERE schemaname = 'public' ORDER BY relname`,
  );
  const parts = tables.rows.map(
    ({ t }) => `SELECT '${t}' AS t, count(*)::int AS n FROM "${t}" WHERE age(xmin) < age($1::text::xid)`,
  );
  const r = await db.query<{ t: string; n: number }>(parts.join('\nUNION ALL\n'), [marker]);
  return Object.fromEntries(r.rows.filter((x) => x.n > 0).map((x) => [x.t, x.n]));
}

async function marker(db: Database): Promise<string> {
  const r = await db.query<{ x: string }>('SELECT (txid_current() % 4294967296)::text AS x');
  return r.rows[0]?.x ?? '0';
}

/** Requests in the table before anything is measured, a tenth of them the measured hotel's. */
const SEEDED = 100_000;

/** Through the TLS-terminating proxy production requires. */
const PROXIED = { 'x-forwarded-proto': 'https' };

/** A notification the sandbox tried to deliver: kept, to be posted once, measured. */
interface Notice {
  body: string;
  headers: IncomingHttpHeaders;
}

export async function benchRequestCosts(
  engine: Engine,
  adminUrl: string,
  log: (line: string) => void,
): Promise<RequestCost[]> {
  // The sandbox posts its notifications to PUBLIC_BASE_URL: here, a recorder that keeps them
  // and answers 503, so each one reaches the service only when measured.
  const notices: Notice[] = [];
  const recorder = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => {
      body += d;
    });
    req.on('end', () => {
      notices.push({ body, headers: req.headers });
      res.writeHead(503).end();
    });
  });
  await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
  const recorderUrl = `http://127.0.0.1:${(recorder.address() as AddressInfo).port}`;

  // On PostgreSQL, a server of the bench's own with pg_stat_statements loaded.
  const server = engine === 'postgres' ? await startPrivatePostgres() : null;
  if (server && 'unavailable' in server) log(`request costs: no database figures (${server.unavailable})`);
  const admin = server && !('unavailable' in server) ? server.adminUrl : adminUrl;
  const fresh = await freshDatabase(engine, admin, 'costs');
  const raw = await openMigrated(fresh.url);
  const statements = server && !('unavailable' in server) ? await statementStatistics(fresh.url) : null;
  try {
    const tenants = await makeTenants(raw, repositories(raw), 2);
    const tenant = tenants[0];
    if (!tenant) throw new Error('request costs: no tenant');
    // A table of a hotel group's size, not a fresh one: on a few hundred rows the planner reads
    // payment_requests whole where a live table is probed by its indexes, and every index is
    // shallower than it will be. Analyzed as the nightly job does, then written out.
    log(`request costs (${engine}): seeding ${SEEDED.toLocaleString('en')} requests`);
    await seedRequests(raw, tenants, 1, SEEDED);
    const { db, counts } = counting(raw);
    const config = loadConfig({
      NODE_ENV: 'production',
      DATABASE_URL: fresh.url,
      SECRET_KEY,
      SANDBOX_IN_PRODUCTION: 'true',
      CREATE_RATE_LIMIT: '1000000',
      // The sandbox warns of each notification the recorder turned away: by design here.
      LOG_LEVEL: 'error',
      WORKERS: 'off',
      TRUST_PROXY: 'loopback',
      PUBLIC_BASE_URL: recorderUrl,
    });
    const app = await buildApp({ config, db });
    try {
      const today = new Date().toLocaleDateString('sv');
      let n = 0;
      const create = async (type: 'IMPRINT' | 'DEPOSIT', checkin: string) => {
        n++;
        const body = JSON.parse(CREATE_BODY.replaceAll('__N__', `cost-${n}`)) as Record<string, unknown>;
        body.request_type = type;
        body.reservation_data = { checkin, checkout: checkin, room_type: 'Double' };
        const r = await app.inject({
          method: 'POST',
          url: '/api/payment-requests/',
          headers: apiHeaders(tenant, { 'content-type': 'application/json', 'idempotency-key': randomUUID() }),
          payload: JSON.stringify(body),
        });
        if (r.statusCode !== 201) throw new Error(`request costs: create answered ${r.statusCode}: ${r.body}`);
        return (r.json() as { uuid: string }).uuid;
      };
      /** The guest opens the link and pays or registers a card: the sandbox keeps its notification. */
      let guests = 0;
      const guestPays = async (id: string): Promise<Notice> => {
        // Each guest from an address of their own, as the guest page's limit per address expects.
        guests++;
        const guest = { ...PROXIED, 'x-forwarded-for': `10.0.${guests >> 8}.${guests & 255}` };
        const page = await app.inject({ method: 'GET', url: `/payment/${id}/`, headers: guest });
        if (page.statusCode !== 200) throw new Error(`request costs: guest page answered ${page.statusCode}`);
        const fields = Object.fromEntries(
          [...page.body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [
            m[1],
            decodeHtml(m[2] ?? ''),
          ]),
        );
        const before = notices.length;
        const paid = await app.inject({
          method: 'POST',
          url: SANDBOX_PAY_PATH,
          headers: { ...guest, 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams({
            ...fields,
            card_number: TEST_CARDS.accepted,
            exp_month: '12',
            exp_year: String(new Date().getUTCFullYear() + 2),
            cvv: '123',
          }).toString(),
        });
        if (paid.statusCode >= 400) throw new Error(`request costs: the sandbox answered ${paid.statusCode}`);
        const notice = notices[before];
        if (!notice) throw new Error('request costs: the sandbox sent no notification');
        return notice;
      };
      const ipn = async (notice: Notice) => {
        const r = await app.inject({
          method: 'POST',
          url: '/ipn/sandbox/',
          headers: {
            ...PROXIED,
            'content-type': 'application/json',
            'x-sandbox-signature': String(notice.headers['x-sandbox-signature']),
          },
          payload: notice.body,
        });
        if (r.statusCode >= 300) throw new Error(`request costs: the IPN answered ${r.statusCode}: ${r.body}`);
      };
      const api = async (path: string) => {
        const r = await app.inject({ method: 'POST', url: path, headers: apiHeaders(tenant) });
        if (r.statusCode !== 200) throw new Error(`request costs: ${path} answered ${r.statusCode}: ${r.body}`);
      };

      /** Runs `op` over `samples` items, counting only what `op` does; figures are per item. */
      const measure = async <T>(
        operation: string,
        items: readonly T[],
        op: (items: readonly T[]) => Promise<number>,
      ): Promise<RequestCost> => {
        const x = await marker(raw);
        if (statements) await statements.reset();
        const c0 = { ...counts };
        const cpu0 = process.cpuUsage();
        const done = await op(items);
        const cpu = process.cpuUsage(cpu0);
        const c1 = { ...counts };
        const database = statements ? await statements.read(done) : null;
        const rows = await rowsSince(raw, x);
        const per = (v: number) => Math.round((v / done) * 100) / 100;
        const ours = Object.entries(rows).filter(([t]) => !t.startsWith('sandbox_'));
        const cost: RequestCost = {
          operation,
          samples: done,
          statements: per(c1.statements - c0.statements),
          roundTrips: per(c1.roundTrips - c0.roundTrips),
          transactions: per(c1.transactions - c0.transactions),
          rowsWritten: per(ours.reduce((a, [, v]) => a + v, 0)),
          byTable: Object.fromEntries(ours.map(([t, v]) => [t, per(v)])),
          sandbox: {
            roundTrips: per(c1.sandboxRoundTrips - c0.sandboxRoundTrips),
            rowsWritten: per(
              Object.entries(rows)
                .filter(([t]) => t.startsWith('sandbox_'))
                .reduce((a, [, v]) => a + v, 0),
            ),
          },
          serviceCpuUs: Math.round((cpu.user + cpu.system) / done),
          database,
        };
        log(
          `request costs (${engine}): ${operation}: ${cost.statements} statements, ${cost.roundTrips} round trips, ${cost.rowsWritten} rows, ` +
            `${cost.serviceCpuUs} µs CPU here${database ? `, ${database.execUs} µs in PostgreSQL, ${database.walBytes} WAL bytes` : ''}`,
        );
        return cost;
      };
      const each = async <T>(items: readonly T[], f: (item: T) => Promise<void>) => {
        for (const item of items) await f(item);
        return items.length;
      };

      // Enough of each that the CPU per operation is the warm code's: the first requests run
      // code V8 has not compiled yet (20 creates after one warm-up read 3 ms each, 0.7 under load).
      const SAMPLES = 100;
      const HOLDS = 384;
      // Warm: the key's cache, prepared statements, the tenant's settings, the compiled code.
      for (let i = 0; i < 100; i++) await create('IMPRINT', '2026-12-24');
      const out: RequestCost[] = [];
      const creates: string[] = [];
      out.push(
        await measure('create (POST, Idempotency-Key)', range(SAMPLES), () =>
          each(range(SAMPLES), async () => {
            creates.push(await create('IMPRINT', '2026-12-24'));
          }),
        ),
      );

      // Imprints due today whose guests register a card: their IPNs, then the daily job's holds.
      const due: string[] = [];
      for (let i = 0; i < HOLDS; i++) due.push(await create('IMPRINT', today));
      const registrations: Notice[] = [];
      for (const id of due) registrations.push(await guestPays(id));
      out.push(await measure('IPN: card registered (imprint)', registrations, (items) => each(items, ipn)));

      const deposits: string[] = [];
      for (let i = 0; i < SAMPLES; i++) deposits.push(await create('DEPOSIT', '2026-12-24'));
      const payments: Notice[] = [];
      for (const id of deposits) payments.push(await guestPays(id));
      out.push(await measure('IPN: deposit paid', payments, (items) => each(items, ipn)));

      const ctx = app.payreq;
      out.push(
        await measure('daily job: one hold (groups of the job)', due, async () => {
          const r = await createDeferredPayments(
            { holds: deferredHoldsRepository(ctx.db), runner: ctx.runner, cardTokens: ctx.cardTokens },
            today,
          );
          if (r.held !== HOLDS) throw new Error(`request costs: the job held ${r.held} of ${HOLDS}`);
          return r.held;
        }),
      );
      out.push(
        await measure('capture (POST, whole hold)', due.slice(0, SAMPLES), (items) =>
          each(items, (id) => api(`/api/payment-requests/${id}/capture/`)),
        ),
      );
      out.push(
        await measure('refund (POST, all of a deposit)', deposits, (items) =>
          each(items, (id) => api(`/api/payment-requests/${id}/refund/`)),
        ),
      );
      return out;
    } finally {
      await app.close();
    }
  } finally {
    await statements?.close();
    await raw.close();
    await fresh.drop();
    if (server && !('unavailable' in server)) await server.stop();
    recorder.close();
  }
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

function decodeHtml(s: string): string {
  return s
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');
}
