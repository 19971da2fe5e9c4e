import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * PGlite admits one process per data directory; two would corrupt it. The
 * process that opens a directory first holds `payreq.lock` there, naming its pid and role.
 */
export const LOCK_FILE = 'payreq.lock';

export type LockRole = 'serve' | 'cli';

export interface LockHolder {
  pid: number;
  role: LockRole | 'unknown';
}

export interface DataDirLock {
  readonly dir: string;
  release(): void;
}

export class DataDirBusyError extends Error {
  readonly dir: string;
  readonly holder: LockHolder;
  constructor(dir: string, holder: LockHolder) {
    super(
      `the data directory ${dir} is in use by process ${holder.pid}${holder.role === 'unknown' ? '' : ` (payreq ${holder.role})`}`,
    );
    this.dir = dir;
    this.holder = holder;
    this.name = 'DataDirBusyError';
  }
}

// Directories this process holds: a lock naming our own pid that we do not hold is stale
// (a container restarted and its new process got the same pid).
const held = new Set<string>();

function readHolder(file: string): LockHolder | undefined {
  let content: string;
  try {
    content = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const [pid, role] = content.trim().split(/\s+/);
  return {
    pid: Number(pid) || 0,
    role: role === 'serve' || role === 'cli' ? role : 'unknown',
  };
}

function isAlive(holder: LockHolder, dir: string): boolean {
  if (holder.pid <= 0) return false;
  if (holder.pid === process.pid) return held.has(dir);
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {}
}

/**
 * Removes a lock whose holder died, unless someone replaced it meanwhile: the stale file is
 * moved aside, and if what was moved is not what was judged stale, it is put back.
 */
function takeOver(file: string, stale: LockHolder): void {
  const aside = `${file}.stale-${process.pid}`;
  try {
    renameSync(file, aside);
  } catch {
    return;
  }
  const moved = readHolder(aside);
  if (moved && (moved.pid !== stale.pid || moved.role !== stale.role)) {
    try {
      linkSync(aside, file);
    } catch {}
  }
  unlinkQuietly(aside);
}

/** Takes the lock if free (or stale); otherwise says who holds it. Never waits. */
export function tryLock(dir: string, role: LockRole): DataDirLock | LockHolder {
  const file = path.join(dir, LOCK_FILE);
  const content = `${process.pid} ${role}\n`;
  for (let attempt = 0; attempt < 5; attempt++) {
    // Written whole first, then linked into place: link() fails if the lock exists, so the
    // lock appears atomically and is never seen empty or half written.
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, content, { mode: 0o600 });
    try {
      linkSync(temp, file);
      held.add(dir);
      return {
        dir,
        release() {
          held.delete(dir);
          // Only our own lock: one taken over after we were presumed dead is not ours to drop.
          if (readHolder(file)?.pid === process.pid) unlinkQuietly(file);
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      unlinkQuietly(temp);
    }
    const holder = readHolder(file);
    if (!holder) continue; // released meanwhile
    if (isAlive(holder, dir)) return holder;
    takeOver(file, holder);
  }
  throw new Error(`could not take the lock ${file}: it keeps changing hands`);
}
