import { type Currency, currencyOfCode, isIsoDate } from '../domain/index.ts';
import { JRB_PROBLEMS_EN, type JrbProblem, sayJrbProblem } from './jrb-problems.ts';
import { lineAmounts, type RemittanceDirection } from './payout-matching.ts';

/**
 * Lyra's bank reconciliation report (JRB), read as Lyra documents it ("Understanding the
 * structure of a bank reconciliation report" V1, V2, V3 on the PayZen, Systempay and Lyra
 * Collect sites; docs/payouts.md): records of `;`-separated fields, one a line, ending with a
 * carriage return (LF alone is read too). A `TITRE` record (shop, delivery time, `TABLE_V1`,
 * `TABLE_V2` or `TABLE_V3`), an `ENTETE` record naming the columns, one `MATCHING` record per
 * remitted operation, and `FIN`, which lets the file's consistency be checked. Columns are
 * read by the ENTETE's labels, never by position: the versions name and order them
 * differently (V1's CARD_TYPE is V2's PAYMENT_METHOD), and a shop may have more of them.
 * Amounts are integers in the currency's smallest unit (the report's default amount format).
 */

/** A file's bytes, as they come: a stream read as it goes, or chunks in memory. */
export type ByteSource = AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

/** The versions of the layout payreq reads. */
export const JRB_VERSIONS = ['TABLE_V1', 'TABLE_V2', 'TABLE_V3'] as const;

/** The labels a MATCHING record must have for payreq to place and match it. */
const REQUIRED = [
  'TRANSACTION_ID',
  'ORDER_ID',
  'OPERATION_TYPE',
  'REMITTANCE_DATE',
  'REMITTANCE_NB',
  'BRUT_AMOUNT',
  'CURRENCY_CODE',
] as const;

/** Longer than any record of the layout (22 short fields, a return context): not a report. */
const MAX_LINE_BYTES = 16 * 1024;
/** More than any amount a hotel's remittance holds, in minor units; also safely an integer. */
const MAX_AMOUNT = 1e13;
const MAX_TEXT = 255;

/**
 * A file refused as a whole: the line it failed on (1 is the first) and why, as data
 * (`problem`, for each reader's language) and in one English sentence (`reason`).
 */
export class JrbRefused extends Error {
  readonly line: number;
  readonly reason: string;
  readonly problem: JrbProblem;
  constructor(line: number, problem: JrbProblem) {
    const reason = sayJrbProblem(JRB_PROBLEMS_EN, problem);
    super(line > 0 ? `line ${line}: ${reason}` : reason);
    this.line = line;
    this.reason = reason;
    this.problem = problem;
    this.name = 'JrbRefused';
  }
}

/** One remitted operation, as read; amounts in minor units (fee and net signed, see lineAmounts). */
export interface JrbLine {
  /** Its line in the file. */
  line: number;
  transactionId: string;
  orderId: string;
  direction: RemittanceDirection;
  /** The gross of the operation, unsigned (BRUT_AMOUNT). */
  amount: number;
  fee: number;
  net: number;
  currency: Currency;
  /** YYYY-MM-DD. */
  remittanceDate: string;
  remittanceNb: string;
  /** YYYY-MM-DD, when given. */
  paymentDate: string | null;
  operationNumber: string | null;
  paymentMethod: string | null;
  matchStatus: string | null;
  /** Names the operation within its remittance: the same in every report that lists it. */
  key: string;
}

export type JrbRecord =
  | { kind: 'title'; shop: string; version: (typeof JRB_VERSIONS)[number]; line: number }
  | { kind: 'matching'; value: JrbLine }
  | { kind: 'end'; line: number; count: number };

const utf8 = new TextDecoder('utf-8', { fatal: true });
const latin1 = new TextDecoder('latin1');

/** A line's text: UTF-8 when it is, Latin-1 otherwise (each byte a character: never refused). */
function decode(bytes: Uint8Array, first: boolean): string {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    text = latin1.decode(bytes);
  }
  return first && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** The source's lines, with their numbers: split on LF, a CR before it dropped; memory a line at a time. */
async function* linesOf(source: ByteSource): AsyncGenerator<{ n: number; text: string }> {
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let n = 0;
  const finish = (tail: Uint8Array) => {
    const parts = pendingBytes === 0 ? [tail] : [...pending, tail];
    const size = pendingBytes + tail.length;
    pending = [];
    pendingBytes = 0;
    const whole = parts.length === 1 ? (parts[0] as Uint8Array) : Buffer.concat(parts, size);
    const end = whole.length > 0 && whole[whole.length - 1] === 0x0d ? whole.length - 1 : whole.length;
    n++;
    return { n, text: decode(whole.subarray(0, end), n === 1) };
  };
  for await (const chunk of source) {
    let start = 0;
    for (;;) {
      const lf = chunk.indexOf(0x0a, start);
      if (lf === -1) break;
      yield finish(chunk.subarray(start, lf));
      start = lf + 1;
    }
    if (start < chunk.length) {
      pending.push(chunk.subarray(start));
      pendingBytes += chunk.length - start;
      if (pendingBytes > MAX_LINE_BYTES) throw new JrbRefused(n + 1, { kind: 'lineTooLong', maxBytes: MAX_LINE_BYTES });
    }
  }
  if (pendingBytes > 0) yield finish(new Uint8Array(0));
}

/** A field as written, without the blanks or quotes around it. */
function clean(field: string): string {
  const t = field.trim();
  return t.length >= 2 && t.startsWith('"') && t.endsWith('"') ? t.slice(1, -1).trim() : t;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;

/**
 * The report's records, one at a time, checked as they come; throws JrbRefused on the first
 * thing that is not Lyra's layout, naming its line. A consumer that stores as it reads must do
 * so in one transaction and roll it back on the refusal (the end's count is only checked last).
 */
export async function* readJrb(source: ByteSource): AsyncGenerator<JrbRecord> {
  let state: 'title' | 'header' | 'records' | 'ended' = 'title';
  let labels = new Map<string, number>();
  let count = 0;
  let last = 0;
  for await (const { n, text } of linesOf(source)) {
    last = n;
    if (text.trim() === '') continue;
    if (CONTROL.test(text)) throw new JrbRefused(n, { kind: 'controlCharacter' });
    const fields = text.split(';').map(clean);
    const code = fields[0] ?? '';
    if (state === 'ended') throw new JrbRefused(n, { kind: 'afterEnd', found: code.slice(0, 20) });
    if (state === 'title') {
      if (code !== 'TITRE') {
        throw new JrbRefused(n, { kind: 'notAReport', found: code.slice(0, 20) });
      }
      const version = fields[3] ?? '';
      if (!(JRB_VERSIONS as readonly string[]).includes(version)) {
        throw new JrbRefused(n, {
          kind: 'unknownVersion',
          found: version.slice(0, 20),
          known: JRB_VERSIONS.join(', '),
        });
      }
      yield { kind: 'title', shop: (fields[1] ?? '').slice(0, MAX_TEXT), version: version as never, line: n };
      state = 'header';
      continue;
    }
    if (state === 'header') {
      if (code !== 'ENTETE') throw new JrbRefused(n, { kind: 'noHeader', found: code.slice(0, 20) });
      labels = new Map();
      fields.forEach((label, i) => {
        if (i === 0 || label === '') return;
        if (labels.has(label)) throw new JrbRefused(n, { kind: 'labelTwice', label });
        labels.set(label, i);
      });
      const missing = REQUIRED.filter((l) => !labels.has(l));
      if (missing.length > 0) throw new JrbRefused(n, { kind: 'labelsMissing', labels: missing.join(', ') });
      state = 'records';
      continue;
    }
    if (code === 'FIN') {
      const stated = fields[1] ?? '';
      if (stated !== '' && (!/^[0-9]{1,9}$/.test(stated) || Number(stated) !== count)) {
        throw new JrbRefused(n, { kind: 'countDiffers', stated: stated.slice(0, 20), count });
      }
      yield { kind: 'end', line: n, count };
      state = 'ended';
      continue;
    }
    if (code !== 'MATCHING') {
      throw new JrbRefused(n, { kind: 'unknownRecord', found: code.slice(0, 20) });
    }
    count++;
    yield { kind: 'matching', value: matching(n, fields, labels) };
  }
  if (state === 'title') throw new JrbRefused(0, { kind: 'emptyFile' });
  if (state !== 'ended') throw new JrbRefused(last + 1, { kind: 'cutShort' });
}

function matching(n: number, fields: readonly string[], labels: ReadonlyMap<string, number>): JrbLine {
  const value = (label: string): string => {
    const i = labels.get(label);
    return i === undefined ? '' : (fields[i] ?? '');
  };
  const text = (label: string, required: boolean): string | null => {
    const v = value(label);
    if (v === '') {
      if (required) throw new JrbRefused(n, { kind: 'fieldEmpty', label });
      return null;
    }
    if (v.length > MAX_TEXT) throw new JrbRefused(n, { kind: 'fieldTooLong', label, max: MAX_TEXT });
    return v;
  };
  const date = (label: string, required: boolean): string | null => {
    const v = text(label, required);
    if (v === null) return null;
    const iso = /^([0-9]{4})([0-9]{2})([0-9]{2})$/.exec(v);
    const day = iso ? `${iso[1]}-${iso[2]}-${iso[3]}` : '';
    if (!iso || !isIsoDate(day)) throw new JrbRefused(n, { kind: 'notADate', label, found: v.slice(0, 20) });
    return day;
  };
  const amount = (label: string, required: boolean): number | undefined => {
    const v = text(label, required);
    if (v === null) return undefined;
    if (/^-?[0-9]+[.,][0-9]+$/.test(v)) {
      throw new JrbRefused(n, { kind: 'decimalAmount', label, found: v.slice(0, 20) });
    }
    // The layout's amounts are unsigned (OPERATION_TYPE says which way the money went): a sign
    // is a file payreq cannot read as Lyra writes it, refused whole rather than turned positive.
    if (/^-[0-9]/.test(v)) {
      throw new JrbRefused(n, { kind: 'negativeAmount', label, found: v.slice(0, 20) });
    }
    if (!/^[0-9]{1,15}$/.test(v) || Number(v) > MAX_AMOUNT) {
      throw new JrbRefused(n, { kind: 'notAnAmount', label, found: v.slice(0, 20) });
    }
    return Number(v);
  };

  const type = value('OPERATION_TYPE');
  if (type !== 'DT' && type !== 'CT') {
    throw new JrbRefused(n, { kind: 'operationType', found: type.slice(0, 20) });
  }
  const direction: RemittanceDirection = type === 'DT' ? 'debit' : 'credit';
  const code = value('CURRENCY_CODE');
  const currency = currencyOfCode(code);
  if (!currency) {
    throw new JrbRefused(n, { kind: 'currency', found: code.slice(0, 20) });
  }
  const commissionCode = value('COMMISSION_CURRENCY');
  if (commissionCode !== '' && currencyOfCode(commissionCode) !== currency) {
    throw new JrbRefused(n, { kind: 'commissionCurrency', found: commissionCode.slice(0, 20), currency: code });
  }
  const gross = amount('BRUT_AMOUNT', true) as number;
  const net = amount('NET_AMOUNT', false);
  const commission = amount('COMMISSION_AMOUNT', false);
  // A payment's fee is what the provider kept: its net cannot be above its gross.
  if (direction === 'debit' && net !== undefined && net > gross) {
    throw new JrbRefused(n, { kind: 'netAboveGross', net, gross });
  }
  const money = lineAmounts(direction, gross, net, commission);
  if (!money) {
    throw new JrbRefused(n, {
      kind: 'amountsDoNotAddUp',
      gross,
      net: net ?? null,
      commission: commission ?? null,
    });
  }
  const transactionId = text('TRANSACTION_ID', true) as string;
  const orderId = text('ORDER_ID', false) ?? '';
  const paymentDate = date('PAYMENT_DATE', false);
  const operationNumber = text('OPERATION_NUMBER', false);
  return {
    line: n,
    transactionId,
    orderId,
    direction,
    amount: gross,
    fee: money.fee,
    net: money.net,
    currency,
    remittanceDate: date('REMITTANCE_DATE', true) as string,
    remittanceNb: text('REMITTANCE_NB', true) as string,
    paymentDate,
    operationNumber,
    paymentMethod: text('PAYMENT_METHOD', false) ?? text('CARD_TYPE', false),
    matchStatus: text('MATCH_STATUS', false),
    key: [paymentDate ?? '', transactionId, type, operationNumber ?? '', orderId, String(gross)].join('|'),
  };
}
