/**
 * A failure the user can act on: a bad argument, an unknown tenant or key. The CLI prints its
 * message as one line on stderr and exits 1; anything else is unexpected (and still one line).
 */
export class CliError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliError';
  }
}

/** The one stderr line for any failure: no stack trace, no multi-line driver dumps. */
export function errorLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return `error: ${message.replace(/\s*\n\s*/g, ' ').trim()}\n`;
}
