/**
 * The job's lease ended and another worker claimed it (its fence token changed), or the job is
 * gone (its domain row was finished elsewhere): this worker's outcome is not recorded, and
 * nothing it would have written to the domain row is.
 */
export class LeaseLostError extends Error {
  readonly jobId: string;
  constructor(jobId: string) {
    super(`job ${jobId}: lease lost, outcome not recorded`);
    this.jobId = jobId;
    this.name = 'LeaseLostError';
  }
}
