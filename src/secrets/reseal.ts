import { SEALED_COLUMNS, type SealedKind, type SealedValuesRepository } from '../db/index.ts';
import type { SecretKeyRing } from './key-ring.ts';
import { SealedValueError, secretBox } from './secret-box.ts';

/** Rows that could not be opened are listed up to this many (the counts are complete). */
const MAX_LISTED_FAILURES = 50;

export interface ResealFailure {
  kind: SealedKind;
  /** The row key (payment request, tenant, webhook endpoint), never the value. */
  row: string;
  key_id: string | null;
  error: string;
}

export interface ResealCounts {
  resealed: number;
  /** Changed by someone else between read and write (compare-and-set lost): their value stays. */
  changed_meanwhile: number;
  failed: number;
}

export interface ResealResult extends ResealCounts {
  current_key_id: string;
  kinds: Record<SealedKind, ResealCounts>;
  failures: ResealFailure[];
  /** Values left under each key id other than the current one: every retired id, 0 included. */
  remaining: Record<string, number>;
}

/**
 * Opens every sealed value not under the current key with the key its id names and seals it
 * again with the current key, `batchSize` rows at a time; each batch is one compare-and-set
 * statement on the old sealed text, so it is safe while the service runs and an interrupted
 * run loses nothing: the next one continues with what is still under an old key. A value that
 * cannot be opened (its key id not configured, or the key does not open it) is reported and
 * left as it is; the others proceed.
 */
export async function resealAll(
  repo: SealedValuesRepository,
  ring: SecretKeyRing,
  batchSize: number,
): Promise<ResealResult> {
  const prefix = `v2:${ring.current.id}:`;
  const result: ResealResult = {
    current_key_id: ring.current.id,
    resealed: 0,
    changed_meanwhile: 0,
    failed: 0,
    kinds: {} as Record<SealedKind, ResealCounts>,
    failures: [],
    remaining: Object.fromEntries(ring.old.map((k) => [k.id, 0])),
  };
  for (const kind of Object.keys(SEALED_COLUMNS) as SealedKind[]) {
    const box = secretBox(ring, SEALED_COLUMNS[kind].purpose);
    const counts: ResealCounts = { resealed: 0, changed_meanwhile: 0, failed: 0 };
    let after: string | null = null;
    for (;;) {
      const rows = await repo.notUnder(kind, prefix, after, batchSize);
      if (rows.length === 0) break;
      after = rows[rows.length - 1]?.key ?? null;
      const changes: { key: string; old: string; next: string }[] = [];
      for (const r of rows) {
        try {
          changes.push({ key: r.key, old: r.sealed, next: box.seal(box.open(r.sealed, r.key), r.key) });
        } catch (err) {
          counts.failed++;
          if (result.failures.length < MAX_LISTED_FAILURES) {
            result.failures.push({
              kind,
              row: r.key,
              key_id: err instanceof SealedValueError ? (err.keyId ?? null) : null,
              error: err instanceof Error ? err.message : String(err),
            });
          }
        }
      }
      const written = await repo.replace(kind, changes);
      counts.resealed += written.size;
      counts.changed_meanwhile += changes.length - written.size;
    }
    for (const [id, n] of await repo.countByKeyId(kind)) {
      if (id !== ring.current.id) result.remaining[id] = (result.remaining[id] ?? 0) + n;
    }
    result.kinds[kind] = counts;
    result.resealed += counts.resealed;
    result.changed_meanwhile += counts.changed_meanwhile;
    result.failed += counts.failed;
  }
  return result;
}
