import { performance } from 'node:perf_hooks';

export interface DriverFloorResult {
  tps: number;
  transactions: number;
  latency: { p50: number; p99: number; mean: number };
}

/**
 * The SQL floor where pgbench cannot go (embedded PGlite has no server): `concurrency` loops
 * in this process run the statement back to back through the driver, with no HTTP at all.
 */
export async function driverFloor(
  runOnce: (i: number) => Promise<unknown>,
  concurrency: number,
  seconds: number,
): Promise<DriverFloorResult> {
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  let n = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        await runOnce(n++);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
  return {
    tps: latencies.length / elapsed,
    transactions: latencies.length,
    latency: { p50: at(50), p99: at(99), mean: latencies.reduce((a, b) => a + b, 0) / Math.max(1, latencies.length) },
  };
}
