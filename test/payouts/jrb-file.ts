/**
 * Bank reconciliation reports (JRB) built as Lyra documents them ("Understanding the structure of
 * a bank reconciliation report" V1 on Systempay's site, V2 on Lyra Collect's): a TITRE record
 * (shop, delivery time YY/MM/DD_hh:mm:ss, version), the ENTETE record naming the columns in the
 * documented order, one MATCHING record per remitted operation, and FIN with the count.
 * Amounts in the currency's smallest unit, dates YYYYMMDD, the currency as its ISO 4217 number.
 */

/** V1's columns, in the documented order (positions 01 to 22). */
export const V1_LABELS = [
  'MERCHANT_COUNTRY',
  'MERCHANT_ID',
  'CONTRACT',
  'PAYMENT_DATE',
  'TRANSACTION_ID',
  'ORIGIN_AMOUNT',
  'CURRENCY_CODE',
  'CARD_TYPE',
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

/** V2 names the card type PAYMENT_METHOD (position 09); the rest as V1. */
export const V2_LABELS = V1_LABELS.map((l) => (l === 'CARD_TYPE' ? 'PAYMENT_METHOD' : l));

export interface Operation {
  orderId: string;
  transactionId: string;
  type: 'DT' | 'CT';
  /** Minor units. */
  amount: number;
  commission?: number | null;
  /** Default: amount - commission for a debit, amount for a credit. */
  net?: number | null;
  paymentDate?: string;
  remittanceDate?: string;
  remittanceNb?: string;
  currency?: string;
  operationNumber?: string;
}

export interface JrbOptions {
  version?: 'TABLE_V1' | 'TABLE_V2' | 'TABLE_V3';
  shop?: string;
  /** Columns in another order (the reader goes by the labels). */
  labels?: readonly string[];
  eol?: '\r\n' | '\n';
  /** FIN's count; default the number of MATCHING records. */
  finCount?: number | null;
}

export function matchingFields(op: Operation): Record<string, string> {
  const commission = op.commission === undefined ? 0 : op.commission;
  const net = op.net === undefined ? (op.type === 'DT' ? op.amount - (commission ?? 0) : op.amount) : op.net;
  return {
    MERCHANT_COUNTRY: 'FR',
    MERCHANT_ID: '012345678901234',
    CONTRACT: '1234567',
    PAYMENT_DATE: op.paymentDate ?? '20261120',
    TRANSACTION_ID: op.transactionId,
    ORIGIN_AMOUNT: String(op.amount),
    CURRENCY_CODE: op.currency ?? '978',
    CARD_TYPE: 'CB',
    PAYMENT_METHOD: 'CB',
    ORDER_ID: op.orderId,
    RETURN_CONTEXT: '',
    CUSTOMER_ID: '',
    OPERATION_TYPE: op.type,
    OPERATION_NUMBER: op.operationNumber ?? '1',
    REMITTANCE_DATE: op.remittanceDate ?? '20261121',
    REMITTANCE_TIME: '0530',
    BRUT_AMOUNT: String(op.amount),
    MATCH_STATUS: 'MATCH_OK',
    REMITTANCE_NB: op.remittanceNb ?? '000042',
    NET_AMOUNT: net === null ? '' : String(net),
    COMMISSION_AMOUNT: commission === null ? '' : String(commission),
    COMMISSION_CURRENCY: commission === null ? '' : (op.currency ?? '978'),
  };
}

/** The report's text (encode it as the test needs: UTF-8 or Latin-1). */
export function jrbText(ops: readonly Operation[], opts: JrbOptions = {}): string {
  const version = opts.version ?? 'TABLE_V2';
  const labels = opts.labels ?? (version === 'TABLE_V1' ? V1_LABELS : V2_LABELS);
  const eol = opts.eol ?? '\r\n';
  const lines = [
    ['TITRE', opts.shop ?? 'HOTEL DES TESTS', '26/11/22_11:02:13', version].join(';'),
    ['ENTETE', ...labels].join(';'),
    ...ops.map((op) => {
      const f = matchingFields(op);
      return ['MATCHING', ...labels.map((l) => f[l] ?? '')].join(';');
    }),
    opts.finCount === null ? 'FIN' : `FIN;${opts.finCount ?? ops.length}`,
  ];
  return `${lines.join(eol)}${eol}`;
}

export function jrb(ops: readonly Operation[], opts: JrbOptions & { encoding?: 'utf8' | 'latin1' } = {}): Buffer {
  return Buffer.from(jrbText(ops, opts), opts.encoding ?? 'utf8');
}
