/**
 * Why a bank reconciliation report is refused, as data: the reader says which rule a line broke
 * and with what, each reader's language says it in its words (the back office's Payouts page in
 * the user's language, the command line in English). Texts quoted from the file are cut to 20
 * characters by the reader.
 */
export type JrbProblem =
  | { kind: 'lineTooLong'; maxBytes: number }
  | { kind: 'controlCharacter' }
  | { kind: 'afterEnd'; found: string }
  | { kind: 'notAReport'; found: string }
  | { kind: 'unknownVersion'; found: string; known: string }
  | { kind: 'noHeader'; found: string }
  | { kind: 'labelTwice'; label: string }
  | { kind: 'labelsMissing'; labels: string }
  | { kind: 'countDiffers'; stated: string; count: number }
  | { kind: 'unknownRecord'; found: string }
  | { kind: 'emptyFile' }
  | { kind: 'cutShort' }
  | { kind: 'fieldEmpty'; label: string }
  | { kind: 'fieldTooLong'; label: string; max: number }
  | { kind: 'notADate'; label: string; found: string }
  | { kind: 'decimalAmount'; label: string; found: string }
  | { kind: 'negativeAmount'; label: string; found: string }
  | { kind: 'notAnAmount'; label: string; found: string }
  | { kind: 'operationType'; found: string }
  | { kind: 'currency'; found: string }
  | { kind: 'commissionCurrency'; found: string; currency: string }
  | { kind: 'netAboveGross'; net: number; gross: number }
  | { kind: 'amountsDoNotAddUp'; gross: number; net: number | null; commission: number | null };

/** One sentence per problem, in one language: a catalogue missing a kind is a type error. */
export type JrbProblemWords = {
  [K in JrbProblem['kind']]: (p: Extract<JrbProblem, { kind: K }>) => string;
};

/** The problem in a catalogue's words. */
export function sayJrbProblem(words: JrbProblemWords, p: JrbProblem): string {
  return (words[p.kind] as (p: JrbProblem) => string)(p);
}

/** English: the command line's, the log's, and the back office's English pages. */
export const JRB_PROBLEMS_EN: JrbProblemWords = {
  lineTooLong: (p) => `longer than ${p.maxBytes} bytes: not a JRB record`,
  controlCharacter: () => 'holds a control character: not a JRB record',
  afterEnd: (p) => `"${p.found}" after the FIN record`,
  notAReport: (p) => `a bank reconciliation report starts with its TITRE record, not "${p.found}"`,
  unknownVersion: (p) => `version "${p.found}" is none payreq reads (${p.known})`,
  noHeader: (p) => `the TITRE record is followed by ENTETE, not "${p.found}"`,
  labelTwice: (p) => `ENTETE names ${p.label} twice`,
  labelsMissing: (p) => `ENTETE lacks ${p.labels}`,
  countDiffers: (p) => `FIN counts "${p.stated}" records, the file holds ${p.count} MATCHING records`,
  unknownRecord: (p) => `"${p.found}" is no record of the report (MATCHING lines, then FIN)`,
  emptyFile: () => 'the file is empty',
  cutShort: () => 'the file ends before its FIN record (cut short?)',
  fieldEmpty: (p) => `${p.label} is empty`,
  fieldTooLong: (p) => `${p.label} is longer than ${p.max} characters`,
  notADate: (p) => `${p.label} "${p.found}" is not a date YYYYMMDD`,
  decimalAmount: (p) =>
    `${p.label} "${p.found}" is not in the currency’s smallest unit: choose that amount format for the report in Lyra’s back office`,
  negativeAmount: (p) =>
    `${p.label} "${p.found}" is negative: the report's amounts carry no sign (OPERATION_TYPE says debit or credit)`,
  notAnAmount: (p) => `${p.label} "${p.found}" is not an amount`,
  operationType: (p) => `OPERATION_TYPE "${p.found}" is neither DT (debit) nor CT (credit)`,
  currency: (p) => `CURRENCY_CODE "${p.found}" is none payreq takes (978 EUR, 756 CHF, 840 USD)`,
  commissionCurrency: (p) => `COMMISSION_CURRENCY "${p.found}" is not the line’s currency ${p.currency}`,
  netAboveGross: (p) => `NET_AMOUNT ${p.net} is above BRUT_AMOUNT ${p.gross}: a payment’s fee cannot be negative`,
  amountsDoNotAddUp: (p) =>
    `BRUT_AMOUNT ${p.gross}, NET_AMOUNT ${p.net ?? '(none)'} and COMMISSION_AMOUNT ${p.commission ?? '(none)'} do not add up (amounts in the currency’s smallest unit?)`,
};
