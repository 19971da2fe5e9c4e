import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const GENERATOR = fileURLToPath(new URL('./load-generator.mjs', import.meta.url));
/** For a fixed rate: evenly spaced requests, each timed from the instant it was due. */
const PACED = fileURLToPath(new URL('./paced-load.mjs', import.meta.url));

export interface LoadPlan {
  url: string;
  connections: number;
  duration: number;
  /** Requests per second for all connections together; none: as fast as answers come. */
  overallRate?: number;
  method: 'GET' | 'POST';
  paths: string[];
  headers: Record<string, string>[];
  body?: string;
  /** Unique `__N__` values and Idempotency-Key per request (creates). */
  unique?: boolean;
  /** A different client address per request, as many guests would have (TRUST_PROXY). */
  forwardedFor?: boolean;
}

export interface LoadResult {
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  seconds: number;
  /** Successful answers per second. */
  rps: number;
  /** Milliseconds: whole under autocannon (its resolution), to 0.01 ms at a fixed rate. */
  latency: { mean: number; p50: number; p99: number; max: number };
  statusCodes: Record<string, number>;
  /** Mean latency from Little's law (connections / rps), in ms: finer than the histogram. */
  meanMs: number;
}

/** Runs the load generator in its own process and returns what it measured. */
export function runLoad(plan: LoadPlan): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [plan.overallRate ? PACED : GENERATOR, JSON.stringify(plan)],
      { maxBuffer: 16 * 1024 * 1024, timeout: (plan.duration + 60) * 1000 },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`load generator failed: ${err.message}\n${stderr}`));
        const r = JSON.parse(stdout) as Omit<LoadResult, 'meanMs'>;
        const meanMs = r.rps > 0 && !plan.overallRate ? (plan.connections / r.rps) * 1000 : r.latency.mean;
        resolve({ ...r, meanMs });
      },
    );
  });
}

/** A measurement that got errors measured the wrong thing: stop rather than print it. */
export function assertClean(label: string, r: LoadResult): LoadResult {
  if (r.non2xx > 0 || r.errors > 0 || r.timeouts > 0 || r.ok === 0) {
    throw new Error(
      `${label}: ${r.ok} ok, ${r.non2xx} non-2xx ${JSON.stringify(r.statusCodes)}, ${r.errors} errors, ${r.timeouts} timeouts`,
    );
  }
  return r;
}

/**
 * Runs each measurement `rounds` times, interleaved (A B C, A B C), and keeps each one's best
 * round: on a shared machine a neighbour only ever slows a run down, so the best round is the
 * closest to what the code can do, and interleaving gives every side the same neighbours.
 */
export async function bestOf<T extends { rps: number }>(rounds: number, runs: (() => Promise<T>)[]): Promise<T[]> {
  const best: (T | undefined)[] = runs.map(() => undefined);
  for (let r = 0; r < rounds; r++) {
    for (const [i, run] of runs.entries()) {
      const m = await run();
      const b = best[i];
      if (!b || m.rps > b.rps) best[i] = m;
    }
  }
  return best as T[];
}
