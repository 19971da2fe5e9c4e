// Money that reaches the bank: the provider's bank reconciliation report (Lyra's JRB) read,
// streamed, its remittances stored and each line matched to the ledger (docs/payouts.md).
export { type ImportDeps, type ImportResult, importJrb } from './import-jrb.ts';
export { JRB_PROBLEMS_EN, type JrbProblem, type JrbProblemWords, sayJrbProblem } from './jrb-problems.ts';
export { type ByteSource, JRB_VERSIONS, type JrbLine, type JrbRecord, JrbRefused, readJrb } from './jrb-reader.ts';
export { presentRemittance, tenantProvider } from './present.ts';
