import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Database } from '../../db/index.ts';
import {
  CURRENCY_NUMBERS,
  type Currency,
  dayEnd,
  dayStart,
  END_OF_TIME,
  isDayInRange,
  isUuid,
} from '../../domain/index.ts';
import { hotelOfCall } from './sandbox-caller.ts';

export const SANDBOX_JRB_PATH = '/sandbox/reports/jrb';

/**
 * The sandbox's fee on a debit, as a provider's commission: 1.4 % of the amount, rounded to the
 * nearest minor unit (half up), plus 0.25 in the currency's unit. A refund (credit) carries none.
 */
export function sandboxFee(cents: number): number {
  return Math.round((cents * 14) / 1000) + 25;
}

/** V2's columns, in the order Lyra's documentation lists them. */
const LABELS = [
  'MERCHANT_COUNTRY',
  'MERCHANT_ID',
  'CONTRACT',
  'PAYMENT_DATE',
  'TRANSACTION_ID',
  'ORIGIN_AMOUNT',
  'CURRENCY_CODE',
  'PAYMENT_METHOD',
  'ORDER_ID',
  'RETURN_CONTEXT',
  'CUSTOMER_ID',
  'OPERATION_TYPE',
  'OPERATION_NUMBER',
  'REMITTANCE_DATE',
  'REMITTANCE_TIME',
  'BRUT_AMOUNT',
  'MATCH_STATUS',
  'REMITTANCE_NB',
  'NET_AMOUNT',
  'COMMISSION_AMOUNT',
  'COMMISSION_CURRENCY',
] as const;

/** One remitted operation of the day: a payment or a captured hold (DT), a refund (CT). */
interface Operation {
  order_id: string;
  number: string;
  type: 'DT' | 'CT';
  amount: number;
  currency: string;
  method: string | null;
  at: Date;
}

const Query = Type.Object({
  tenant: Type.Optional(Type.String({ maxLength: 64 })),
  date: Type.Optional(Type.String({ maxLength: 10 })),
});
const Refusal = Type.Object({ error: Type.String(), code: Type.String(), detail: Type.Optional(Type.String()) });

/** A value of the report: no field separator, no line break (a hotel's name holds anything). */
const field = (v: string) => v.replace(/[;\r\n]/g, ' ');

/**
 * The day's money of the tenant's orders at the sandbox, in its zone: the payments (a DEPOSIT's,
 * what it captured), the holds captured that day (at the moment of the capture), the refunds.
 * The sandbox is one shop for every hotel without an account of its own; the service's request
 * table says which orders are this hotel's, as a real provider's shop per hotel would.
 */
async function operationsOf(db: Database, tenantId: string, from: Date, to: Date): Promise<Operation[]> {
  const r = await db.query<Operation>(
    `SELECT t.order_id::text AS order_id, t.legacy_trans_id AS number, 'DT' AS type, t.captured_amount AS amount,
            t.currency, NULL AS method, t.created_at AS at
       FROM sandbox_transactions t JOIN payment_requests p ON p.id = t.order_id
      WHERE p.tenant_id = $1 AND t.kind = 'payment' AND t.captured_amount > 0
        AND t.created_at >= $2 AND t.created_at < $3
     UNION ALL
     SELECT t.order_id::text, t.legacy_trans_id, 'DT', o.amount, t.currency, k.network, o.created_at
       FROM sandbox_operations o
       JOIN sandbox_transactions t ON t.id = o.transaction_id
       JOIN payment_requests p ON p.id = t.order_id
       LEFT JOIN sandbox_tokens k ON k.token = t.token
      WHERE p.tenant_id = $1 AND o.operation = 'capture' AND t.kind = 'hold' AND o.amount > 0
        AND o.created_at >= $2 AND o.created_at < $3
     UNION ALL
     SELECT t.order_id::text, t.legacy_trans_id, 'CT', t.amount, t.currency, NULL, t.created_at
       FROM sandbox_transactions t JOIN payment_requests p ON p.id = t.order_id
      WHERE p.tenant_id = $1 AND t.kind = 'refund' AND t.created_at >= $2 AND t.created_at < $3
      ORDER BY at, number`,
    [tenantId, from, to],
  );
  return r.rows;
}

const yymmdd = (d: string) => d.replaceAll('-', '');

/** `YY/MM/DD_hh:mm:ss` in the zone: the TITRE's delivery time. */
function deliveredAt(at: Date, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', {
      timeZone,
      year: '2-digit',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}/${parts.month}/${parts.day}_${parts.hour}:${parts.minute}:${parts.second}`;
}

/**
 * The sandbox's remittance report of one hotel and day (see reportRoute), undefined for no such
 * hotel: what the route and the back office's Payouts page serve.
 */
export async function sandboxReport(
  db: Database,
  tenantId: string,
  date: string,
): Promise<{ filename: string; body: string } | undefined> {
  const t = await db.query<{ name: string; timezone: string }>('SELECT name, timezone FROM tenants WHERE id = $1', [
    tenantId,
  ]);
  const hotel = t.rows[0];
  if (!hotel) return undefined;
  const ops = await operationsOf(
    db,
    tenantId,
    dayStart(date, hotel.timezone),
    dayEnd(date, hotel.timezone) ?? END_OF_TIME,
  );
  const lines = [
    ['TITRE', field(hotel.name).slice(0, 100), deliveredAt(new Date(), hotel.timezone), 'TABLE_V2'].join(';'),
    ['ENTETE', ...LABELS].join(';'),
    ...ops.map((o) => {
      const fee = o.type === 'DT' ? sandboxFee(o.amount) : 0;
      const code = CURRENCY_NUMBERS[o.currency as Currency] ?? o.currency;
      const values: Record<(typeof LABELS)[number], string> = {
        MERCHANT_COUNTRY: 'FR',
        MERCHANT_ID: '000000000000000',
        CONTRACT: 'SANDBOX',
        PAYMENT_DATE: yymmdd(date),
        TRANSACTION_ID: o.number,
        ORIGIN_AMOUNT: String(o.amount),
        CURRENCY_CODE: code,
        PAYMENT_METHOD: (o.method ?? 'cb').toUpperCase(),
        ORDER_ID: o.order_id,
        RETURN_CONTEXT: '',
        CUSTOMER_ID: '',
        OPERATION_TYPE: o.type,
        OPERATION_NUMBER: '1',
        REMITTANCE_DATE: yymmdd(date),
        REMITTANCE_TIME: '2359',
        BRUT_AMOUNT: String(o.amount),
        MATCH_STATUS: 'MATCH_OK',
        REMITTANCE_NB: yymmdd(date),
        NET_AMOUNT: String(o.type === 'DT' ? o.amount - fee : o.amount),
        COMMISSION_AMOUNT: String(fee),
        COMMISSION_CURRENCY: code,
      };
      return ['MATCHING', ...LABELS.map((l) => values[l])].join(';');
    }),
    `FIN;${ops.length}`,
  ];
  return { filename: `sandbox_JRB_V2_${yymmdd(date)}.csv`, body: `${lines.join('\r\n')}\r\n` };
}

/**
 * The sandbox's bank reconciliation report of one hotel and day, in Lyra's layout (TABLE_V2, the
 * records and columns Lyra documents; UTF-8, CRLF): each currency's payments, captures and
 * refunds of the day (in the hotel's zone) are one remittance of that day, numbered by its date
 * (`YYYYMMDD`), its fee 1.4 % + 0.25 a debit (docs/payouts.md). Download it and import it as a
 * real one: `payreq settlements import --tenant ID FILE`, or the Payouts page. The same day gives
 * the same lines each time, so importing it again adds nothing. It lists the hotel's order ids,
 * which open the guest's pages: it answers the hotel's own API key (`X-API-Key`) only, even in
 * development (the back office's Payouts page serves the same file to a session of the hotel).
 * `tenant` may be left out (the key's hotel); another hotel's is 404, as one that does not exist.
 * It exists only while the sandbox is the provider.
 */
export function reportRoute(app: FastifyInstance, db: Database): void {
  app.get<{ Querystring: { tenant?: string; date?: string } }>(
    SANDBOX_JRB_PATH,
    {
      schema: { hide: true, querystring: Query, response: { 400: Refusal, 401: Refusal, 404: Refusal } },
      attachValidation: true,
    },
    async (request, reply) => {
      const caller = await hotelOfCall(app, request);
      const { tenant = caller, date } = request.query;
      if (request.validationError || !isUuid(tenant) || !date || !isDayInRange(date)) {
        return reply.code(400).send({
          error:
            'Give date (YYYY-MM-DD, 0100-01-01 to 9999-12-31), and tenant (your tenant id) if you like: /sandbox/reports/jrb?date=2026-11-28',
          code: 'invalid_query',
        });
      }
      // Another hotel's report is no more there than an unknown hotel's.
      if (tenant.toLowerCase() !== caller) {
        return reply.code(404).send({ error: 'No such tenant.', code: 'tenant_not_found' });
      }
      const report = await sandboxReport(db, caller, date);
      if (!report) return reply.code(404).send({ error: 'No such tenant.', code: 'tenant_not_found' });
      return reply
        .header('cache-control', 'no-store')
        .header('content-disposition', `attachment; filename="${report.filename}"`)
        .type('text/csv; charset=utf-8')
        .send(report.body);
    },
  );
}
