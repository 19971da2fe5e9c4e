// Numbers out: a hotel's requests and ledger movements as CSV or JSON, streamed page by page,
// for the back office's download and `payreq export`.
export { decimal } from './columns.ts';
export { CSV_DIALECTS, type CsvDialect, dialectForLanguage } from './csv.ts';
export {
  EXPORT_FORMATS,
  EXPORT_KINDS,
  type ExportFormat,
  type ExportKind,
  type ExportShape,
  exportChunks,
  payoutChunks,
} from './export-stream.ts';
