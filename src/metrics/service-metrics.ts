import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { type Queryable, readServiceBacklogs } from '../db/index.ts';
import type { DeclineReason } from '../domain/index.ts';

/** Latency buckets in seconds: from a cached read (5 ms) to a provider call near its timeout. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20];
const JOB_BUCKETS = [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600];

import type { ProviderErrorKind } from '../providers/index.ts';

/** ok, the provider's own error kinds (refused, technical, unavailable, unknown), or error (anything else). */
export type ProviderOutcome = 'ok' | ProviderErrorKind | 'error';
/** Which connection cap was reached: the instance's, or one client address's. */
export type ConnectionCap = 'instance' | 'address';
export type IpnOutcome = 'accepted' | 'refused' | 'rate_limited' | 'failed' | 'not_found';

/**
 * One instance's metrics, in a registry of its own (several apps can live in one process, in
 * tests). Counters and histograms count what this instance did; the backlog gauges are read
 * from the database at scrape time, so they show the shared state and every instance reports
 * the same value (use max(), not sum(), across instances).
 */
export interface ServiceMetrics {
  registry: Registry;
  httpRequest(method: string, route: string, status: number, seconds: number): void;
  providerCall(provider: string, operation: string, outcome: ProviderOutcome, seconds: number): void;
  ipnNotification(provider: string, outcome: IpnOutcome): void;
  /** A refusal by the bank or the provider, by its reason on payreq's closed list. */
  providerDecline(provider: string, operation: string, reason: DeclineReason): void;
  jobRun(job: string, outcome: 'ok' | 'failed', seconds: number): void;
  /**
   * A connection refused at accept: its cap (the instance's MAX_CONNECTIONS, or its address's
   * MAX_CONNECTIONS_PER_ADDRESS) was reached and every connection under it was serving a request.
   */
  connectionDropped(cap: ConnectionCap): void;
  /** An idle keep-alive connection closed to admit a new one when a cap was reached. */
  connectionEvicted(cap: ConnectionCap): void;
  /** Where payreq_connections_open reads the connections the instance holds, at scrape time. */
  countOpenConnections(read: () => number): void;
}

export function serviceMetrics(db: Queryable): ServiceMetrics {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });

  const http = new Histogram({
    name: 'payreq_http_request_duration_seconds',
    help: 'HTTP requests by route (the route pattern, not the URL) and status; _count is the number of requests',
    labelNames: ['method', 'route', 'status_code'],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const provider = new Histogram({
    name: 'payreq_provider_call_duration_seconds',
    help: 'Calls to the payment provider by operation and outcome (ok, refused, technical, unavailable, unknown, error)',
    labelNames: ['provider', 'operation', 'outcome'],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const ipn = new Counter({
    name: 'payreq_ipn_notifications_total',
    help: 'Provider notifications received, by outcome (accepted, refused, rate_limited, failed, not_found)',
    labelNames: ['provider', 'outcome'],
    registers,
  });
  const jobs = new Histogram({
    name: 'payreq_job_run_duration_seconds',
    help: 'Scheduled job runs made by this instance, by job and outcome; _count is the number of runs',
    labelNames: ['job', 'outcome'],
    buckets: JOB_BUCKETS,
    registers,
  });
  const declines = new Counter({
    name: 'payreq_provider_declines_total',
    help: 'Refusals of provider calls by the bank or the provider, by reason (docs/holds.md)',
    labelNames: ['provider', 'operation', 'reason'],
    registers,
  });
  const dropped = new Counter({
    name: 'payreq_connections_dropped_total',
    help: 'Connections refused at accept: the cap (instance: MAX_CONNECTIONS, address: MAX_CONNECTIONS_PER_ADDRESS) was reached with no idle connection to close',
    labelNames: ['cap'],
    registers,
  });
  const evicted = new Counter({
    name: 'payreq_connections_evicted_total',
    help: 'Idle keep-alive connections closed to admit a new one when a cap (instance or address) was reached',
    labelNames: ['cap'],
    registers,
  });
  let openConnections: () => number = () => 0;
  new Gauge({
    name: 'payreq_connections_open',
    help: 'Client connections the instance holds now (at most MAX_CONNECTIONS)',
    registers,
    collect() {
      this.set(openConnections());
    },
  });
  backlogGauges(db, registers);

  return {
    registry,
    httpRequest: (method, route, status, seconds) =>
      http.observe({ method, route, status_code: String(status) }, seconds),
    providerCall: (name, operation, outcome, seconds) =>
      provider.observe({ provider: name, operation, outcome }, seconds),
    ipnNotification: (name, outcome) => ipn.inc({ provider: name, outcome }),
    providerDecline: (name, operation, reason) => declines.inc({ provider: name, operation, reason }),
    jobRun: (job, outcome, seconds) => jobs.observe({ job, outcome }, seconds),
    connectionDropped: (cap) => dropped.inc({ cap }),
    connectionEvicted: (cap) => evicted.inc({ cap }),
    countOpenConnections: (read) => {
      openConnections = read;
    },
  };
}

interface Backlogs {
  up: boolean;
  pending: number;
  oldestSeconds: number;
  inDoubt: number;
  booksDisagreements: number;
}

/**
 * Backlogs read with SQL when Prometheus scrapes: e-mails waiting to be sent (and the age of the
 * oldest), money operations whose outcome is unknown (in doubt). A database that cannot be read
 * sets payreq_database_up to 0 and the backlogs keep their last values.
 */
function backlogGauges(db: Queryable, registers: Registry[]): void {
  let last: Backlogs = { up: false, pending: 0, oldestSeconds: 0, inDoubt: 0, booksDisagreements: 0 };
  let reading: Promise<Backlogs> | undefined;
  // prom-client collects every metric of a scrape at once: the gauges share the read in flight.
  const read = (): Promise<Backlogs> => {
    reading ??= readBacklogs(db)
      .then(
        (b) => (last = b),
        () => (last = { ...last, up: false }),
      )
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };
  const gauge = (name: string, help: string, pick: (b: Backlogs) => number) =>
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        this.set(pick(await read()));
      },
    });
  gauge('payreq_database_up', '1 when the last scrape could read the database, 0 otherwise', (b) => (b.up ? 1 : 0));
  gauge('payreq_email_outbox_pending', 'E-mails waiting to be sent', (b) => b.pending);
  gauge(
    'payreq_email_outbox_oldest_pending_seconds',
    'Age of the oldest e-mail waiting to be sent (0 when none)',
    (b) => b.oldestSeconds,
  );
  gauge(
    'payreq_ledger_in_doubt',
    'Money ledger rows whose outcome at the provider is unknown (in doubt), awaiting reconciliation',
    (b) => b.inDoubt,
  );
  gauge(
    'payreq_books_disagreements',
    "Requests whose books disagree with the provider's view (open books incidents, see the back office's Books page)",
    (b) => b.booksDisagreements,
  );
}

async function readBacklogs(db: Queryable): Promise<Backlogs> {
  const b = await readServiceBacklogs(db);
  return {
    up: true,
    pending: b.emailsPending,
    oldestSeconds: b.oldestEmailSeconds,
    inDoubt: b.ledgerInDoubt,
    booksDisagreements: b.booksDisagreements,
  };
}
