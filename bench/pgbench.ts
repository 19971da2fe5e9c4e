import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface FloorResult {
  tps: number;
  latency: { p50: number; p99: number; mean: number };
  transactions: number;
}

/** A SQL literal for one parameter value: the script runs the statement text a create runs. */
function literal(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (typeof v === 'string') {
    const quoted = v.replaceAll("'", "''");
    // pgbench reads `:name` anywhere as one of its variables, even inside a string: spell the
    // colon as a Unicode escape, which PostgreSQL still folds into the same constant.
    return v.includes(':') ? `U&'${quoted.replaceAll('\\', '\\\\').replaceAll(':', '\\003A')}'` : `'${quoted}'`;
  }
  if (Array.isArray(v)) return `ARRAY[${v.map(literal).join(', ')}]::text[]`;
  throw new Error(`no literal for ${typeof v}`);
}

/**
 * A pgbench script running `sql` with `params` substituted, where `perRun` names the positions
 * whose value must differ on every transaction (an id, a reservation, an Idempotency-Key),
 * with the SQL expression that makes one.
 */
export function pgbenchScript(sql: string, params: readonly unknown[], perRun: Map<number, string>): string {
  const text = sql.replace(/\$(\d+)/g, (_m, d: string) => {
    const i = Number(d) - 1;
    return perRun.get(i) ?? literal(params[i]);
  });
  // pgbench reads one statement per script; its own meta-commands sit on their own lines.
  return `\\set r random(1, 1000000000000000)\n${text.trim().replace(/\s*\n\s*/g, ' ')};\n`;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/** Runs pgbench with these scripts (equal weights) and reads each transaction's latency from its log. */
export function runPgbench(opts: {
  url: string;
  scripts: string[];
  clients: number;
  seconds: number;
}): Promise<FloorResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'payreq-pgbench-'));
  const args = ['-n', '-M', 'prepared', '-c', String(opts.clients), '-j', '2', '-T', String(opts.seconds)];
  opts.scripts.forEach((s, i) => {
    const f = path.join(dir, `script${i}.sql`);
    writeFileSync(f, s);
    args.push('-f', `${f}@1`);
  });
  args.push('-l', `--log-prefix=${path.join(dir, 'log')}`, opts.url);
  return new Promise((resolve, reject) => {
    execFile('pgbench', args, { maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      try {
        if (err) throw new Error(`pgbench failed: ${err.message}\n${stderr}`);
        const failed = /number of failed transactions: (\d+)/.exec(stdout);
        if (failed && Number(failed[1]) > 0) throw new Error(`pgbench: ${failed[1]} failed transactions\n${stdout}`);
        const tps = /tps = ([\d.]+)/.exec(stdout);
        if (!tps) throw new Error(`pgbench printed no tps:\n${stdout}\n${stderr}`);
        const micros: number[] = [];
        for (const f of readdirSync(dir).filter((n) => n.startsWith('log'))) {
          for (const line of readFileSync(path.join(dir, f), 'utf8').split('\n')) {
            const us = Number(line.split(' ')[2]);
            if (line && Number.isFinite(us)) micros.push(us);
          }
        }
        micros.sort((a, b) => a - b);
        const mean = micros.reduce((a, b) => a + b, 0) / Math.max(1, micros.length);
        resolve({
          tps: Number(tps[1]),
          transactions: micros.length,
          latency: { p50: percentile(micros, 50) / 1000, p99: percentile(micros, 99) / 1000, mean: mean / 1000 },
        });
      } catch (e) {
        reject(e);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
