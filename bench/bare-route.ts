// The bare route of the side-by-side (bench/side-by-side.ts says why it exists): a create and a
// detail written as a plain Fastify + pg service would write them, on lean tables of its own.
// The same five statements run here through `pg` and, as a pgbench script, in `leanPgbenchScript`:
// both sides run exactly the text below.
import { createHash, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import type pg from 'pg';
import { DETAIL_COLUMNS } from '../src/db/payment-requests-repository.ts';
import { presentRequestDetail } from '../src/events/request-detail.ts';
import type { Listening } from './baseline.ts';
import { type BenchTenant, TENANT_ID_PREFIX, tenantId } from './environment.ts';

/**
 * The service's tables with the same columns, types, defaults, checks and foreign keys, but only
 * the indexes a plain implementation has (primary keys, the unique reference, the list's index,
 * the history's by request) and no triggers: no events, no job queue, no search indexes.
 */
export const LEAN_SCHEMA_SQL = `
CREATE TABLE tenants (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE payment_requests (
  id uuid PRIMARY KEY,
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  reference text NOT NULL,
  request_type text NOT NULL CHECK (request_type IN ('IMPRINT', 'DEPOSIT')),
  status text NOT NULL CHECK (status IN ('NOT_INITIATED', 'PENDING', 'AUTHORISED', 'AUTHORISED_TO_VALIDATE',
    'CAPTURED', 'REFUSED', 'ERROR', 'CANCELLED', 'EXPIRED', 'REFUNDED')),
  amount integer NOT NULL CHECK (amount >= 0 AND amount <= 100000000),
  amount_captured integer NOT NULL DEFAULT 0 CHECK (amount_captured >= 0),
  amount_refunded integer NOT NULL DEFAULT 0,
  currency text NOT NULL CHECK (currency IN ('EUR', 'CHF', 'USD')),
  guest_email text NOT NULL,
  guest_first_name text NOT NULL,
  guest_last_name text NOT NULL,
  guest_phone text NOT NULL DEFAULT '',
  language text NOT NULL CHECK (language IN ('fr', 'en', 'de')),
  reservation_ref text NOT NULL,
  reservation_data jsonb NOT NULL DEFAULT '{}',
  checkin date,
  masked_pan text NOT NULL DEFAULT '',
  card_expiry_month smallint CHECK (card_expiry_month BETWEEN 1 AND 12),
  card_expiry_year smallint,
  card_token text,
  email_sent boolean NOT NULL DEFAULT false,
  pending_action text CHECK (pending_action IN ('capture', 'release', 'refund', 'hold')),
  pending_since timestamptz,
  hold_expires_at timestamptz,
  link_expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  updated_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  provider text,
  provider_transaction_id text,
  hold_attempts integer NOT NULL DEFAULT 0,
  last_hold_error text,
  card_network_transaction_id text,
  claim_token uuid,
  guarantee_failed_at timestamptz,
  guarantee_failures integer NOT NULL DEFAULT 0,
  guarantee_asks integer NOT NULL DEFAULT 0,
  card_network text,
  hold_decline_reason text,
  hold_decline_code text,
  renew_hold boolean NOT NULL DEFAULT false,
  capture_reason text,
  capture_note text,
  refund_reason text,
  refund_note text,
  released_at timestamptz,
  decline_reason text,
  decline_code text,
  replaces uuid,
  replaced_by uuid,
  CHECK (amount_refunded >= 0 AND amount_refunded <= amount_captured),
  UNIQUE (tenant_id, reference)
);
CREATE INDEX payment_requests_list ON payment_requests (tenant_id, created_at, id);
CREATE TABLE status_history (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  payment_request_id uuid NOT NULL,
  tenant_id uuid NOT NULL,
  from_status text,
  to_status text NOT NULL,
  source text NOT NULL CHECK (source IN ('api', 'admin', 'ipn', 'job', 'guest')),
  actor text,
  detail jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  ledger_id bigint
);
CREATE INDEX status_history_request ON status_history (payment_request_id);
CREATE TABLE email_outbox (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  payment_request_id uuid,
  kind text NOT NULL,
  cause text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed', 'expired')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz,
  ledger_id bigint,
  reminder_number smallint,
  payload jsonb,
  dev_message jsonb
);
CREATE TABLE idempotency_keys (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  key text NOT NULL,
  fingerprint text NOT NULL,
  status_code integer,
  response_body text,
  created_at timestamptz NOT NULL DEFAULT now(),
  released boolean NOT NULL DEFAULT false,
  request_line text,
  PRIMARY KEY (tenant_id, key)
);`;

// The five round trips of a create: BEGIN, these three, COMMIT. No SQL comment inside: pgbench
// runs each text on one line.

/** The key row, with the answer's body as far as it is known before the insert (all but the reference). */
const KEY_SQL = `INSERT INTO idempotency_keys (tenant_id, key, fingerprint, status_code, response_body)
VALUES ($1::uuid, $2::text, $3::text, 201, $4::text)`;

/** The request, its reference drawn from the tenant's sequence and formatted as the service's. */
const REQUEST_SQL = `INSERT INTO payment_requests (id, tenant_id, reference, request_type, status, amount, currency,
  guest_email, guest_first_name, guest_last_name, guest_phone, language, reservation_ref, reservation_data, checkin,
  link_expires_at)
VALUES ($1::uuid, $2::uuid, $3::text || to_char(nextval($4::text::regclass), 'FM9999999999999990000'), $5::text,
  'NOT_INITIATED', $6::int, $7::text, $8::text, $9::text, $10::text, $11::text, $12::text, $13::text, $14::jsonb,
  $15::date, now() + make_interval(days => $16::int))
RETURNING reference`;

/** The creation in the history and the payment link's e-mail in the outbox, in one statement. */
const HISTORY_AND_MAIL_SQL = `WITH h AS (
  INSERT INTO status_history (payment_request_id, tenant_id, from_status, to_status, source, actor)
  VALUES ($1::uuid, $2::uuid, NULL, 'NOT_INITIATED', 'api', $3::text)
)
INSERT INTO email_outbox (tenant_id, payment_request_id, kind, cause)
VALUES ($2::uuid, $1::uuid, 'payment_link', 'payment_link:' || $1::uuid)`;

const DETAIL_SQL = `SELECT ${DETAIL_COLUMNS} FROM payment_requests WHERE id = $1 AND tenant_id = $2`;

/** Each tenant's reference sequence is named by its number, so pgbench can name it from an integer. */
const sequenceName = (n: number) => `reference_imprint_${n}`;

const PUBLIC_BASE_URL = 'http://127.0.0.1:8000';

/** The tenants' numbers: bench tenants are `tenantId(n)`, n from 1, which pgbench relies on. */
function tenantNumbers(tenants: readonly BenchTenant[]): Map<string, number> {
  return new Map(
    tenants.map((t, i) => {
      if (t.id !== tenantId(i + 1)) throw new Error(`tenant ${i + 1} is ${t.id}, not ${tenantId(i + 1)}`);
      return [t.id, i + 1];
    }),
  );
}

/** Lays the lean tables in `pool`'s empty database, with the bench's tenants and their sequences. */
export async function prepareLeanDatabase(pool: pg.Pool, tenants: readonly BenchTenant[]): Promise<void> {
  await pool.query(LEAN_SCHEMA_SQL);
  for (const [id, n] of tenantNumbers(tenants)) {
    await pool.query('INSERT INTO tenants (id, name) VALUES ($1, $2)', [id, `Hôtel ${n}`]);
    await pool.query(`CREATE SEQUENCE ${sequenceName(n)}`);
  }
}

interface CreateBody {
  request_type: 'IMPRINT' | 'DEPOSIT';
  amount: number;
  currency: string;
  guest_email: string;
  guest_first_name: string;
  guest_last_name: string;
  guest_phone: string;
  language: string;
  reservation_ref: string;
  reservation_data: Record<string, unknown>;
}

const UNIQUE_VIOLATION = '23505';

/**
 * The bare route: Fastify without logger or schema, the key only picks the tenant from a map,
 * every statement named (prepared once per connection, as the service's and pgbench's are).
 */
export async function startBareRoute(pool: pg.Pool, tenants: readonly BenchTenant[]): Promise<Listening> {
  const numbers = tenantNumbers(tenants);
  const byKey = new Map(tenants.map((t) => [t.key, { id: t.id, sequence: sequenceName(numbers.get(t.id) ?? 0) }]));
  const year = new Date().getFullYear();
  const app = Fastify({ logger: false });

  app.post('/api/payment-requests/', async (request, reply) => {
    const tenant = byKey.get(String(request.headers['x-api-key']));
    if (!tenant) return reply.code(401).send({ error: 'unknown key' });
    const b = request.body as CreateBody;
    const id = randomUUID();
    const paymentLink = `${PUBLIC_BASE_URL}/payment/${id}/`;
    // A replay would add the reference from the request row: it is drawn two statements later.
    const stored = JSON.stringify({ uuid: id, status: 'NOT_INITIATED', payment_link: paymentLink });
    const fingerprint = createHash('sha256').update(JSON.stringify(b)).digest('hex');
    const checkin = typeof b.reservation_data?.checkin === 'string' ? b.reservation_data.checkin : null;
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query({
        name: 'bare-key',
        text: KEY_SQL,
        values: [tenant.id, String(request.headers['idempotency-key']), fingerprint, stored],
      });
      const r = await client.query<{ reference: string }>({
        name: 'bare-request',
        text: REQUEST_SQL,
        values: [
          id,
          tenant.id,
          `${b.request_type === 'DEPOSIT' ? 'DEP' : 'IMP'}-${year}-`,
          tenant.sequence,
          b.request_type,
          Math.round(b.amount * 100),
          b.currency,
          b.guest_email,
          b.guest_first_name,
          b.guest_last_name,
          b.guest_phone,
          b.language,
          b.reservation_ref,
          JSON.stringify(b.reservation_data),
          checkin,
          30,
        ],
      });
      await client.query({
        name: 'bare-history-mail',
        text: HISTORY_AND_MAIL_SQL,
        values: [id, tenant.id, 'key:bare'],
      });
      await client.query('COMMIT');
      return reply
        .code(201)
        .send({ uuid: id, reference: r.rows[0]?.reference, status: 'NOT_INITIATED', payment_link: paymentLink });
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      if ((err as { code?: string }).code === UNIQUE_VIOLATION) return reply.code(409).send({ error: 'key in use' });
      throw err;
    } finally {
      client.release();
    }
  });

  app.get('/api/payment-requests/:uuid/', async (request, reply) => {
    const tenant = byKey.get(String(request.headers['x-api-key']));
    if (!tenant) return reply.code(401).send({ error: 'unknown key' });
    const r = await pool.query({
      name: 'bare-detail',
      text: DETAIL_SQL,
      values: [(request.params as { uuid: string }).uuid, tenant.id],
    });
    const row = r.rows[0];
    if (!row) return reply.code(404).send({ error: 'not found' });
    return presentRequestDetail(row);
  });

  await app.listen({ host: '127.0.0.1', port: 0 });
  const a = app.server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${a.port}`, close: () => app.close() };
}

/** `$n` replaced by `exprs[n - 1]`, the text on one line. */
function substitute(sql: string, exprs: readonly string[]): string {
  const text = sql.replace(/\$(\d+)/g, (_m, d: string) => {
    const e = exprs[Number(d) - 1];
    if (e === undefined) throw new Error(`no expression for $${d}`);
    return `(${e})`;
  });
  return `${text.replace(/\s*\n\s*/g, ' ')};`;
}

/**
 * The bare route's create as a pgbench script: its five statements, run as it runs them, with
 * the body's values written in. pgbench makes no uuid of its own, so the request's id is built
 * from two random 63-bit integers; the tenant and its sequence come from the integer `:t`.
 */
export function leanPgbenchScript(tenantCount: number, body: string): string {
  const b = JSON.parse(body) as CreateBody;
  // pgbench reads `:name` anywhere as one of its variables, even inside a string (`:8000`):
  // such a literal spells its colons as a Unicode escape, the same constant to PostgreSQL.
  const q = (s: string) => {
    const quoted = s.replaceAll("'", "''");
    return s.includes(':') ? `U&'${quoted.replaceAll('\\', '\\\\').replaceAll(':', '\\003A')}'` : `'${quoted}'`;
  };
  const id = "(lpad(to_hex(:a::bigint), 16, '0') || lpad(to_hex(:b::bigint), 16, '0'))::uuid";
  const tenant = `('${TENANT_ID_PREFIX}' || lpad(:t::text, 12, '0'))::uuid`;
  const stored = [
    q('{"uuid":"'),
    id,
    q(`","status":"NOT_INITIATED","payment_link":"${PUBLIC_BASE_URL}/payment/`),
    id,
    q('/"}'),
  ].join(' || ');
  const tag = "(:a::text || '-' || :b::text)";
  const requestValues = [
    id,
    tenant,
    q(`IMP-${new Date().getFullYear()}-`),
    "'reference_imprint_' || :t::text",
    q(b.request_type),
    String(Math.round(b.amount * 100)),
    q(b.currency),
    `'guest-' || ${tag} || '@example.com'`,
    q(b.guest_first_name),
    q(b.guest_last_name),
    q(b.guest_phone),
    q(b.language),
    `'RES-' || ${tag}`,
    q(JSON.stringify(b.reservation_data)),
    q(String(b.reservation_data.checkin)),
    '30',
  ];
  return [
    `\\set t random(1, ${tenantCount})`,
    '\\set a random(0, 9223372036854775806)',
    '\\set b random(0, 9223372036854775806)',
    'BEGIN;',
    substitute(KEY_SQL, [tenant, `'pgb-' || ${tag}`, q('f'.repeat(64)), stored]),
    substitute(REQUEST_SQL, requestValues),
    substitute(HISTORY_AND_MAIL_SQL, [id, tenant, q('key:pgbench')]),
    'COMMIT;',
    '',
  ].join('\n');
}
