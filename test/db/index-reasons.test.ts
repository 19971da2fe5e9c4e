import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Queryable } from '../../src/db/index.ts';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.ts';

/** The tables every create, hold, IPN and job writes: each of their indexes needs a reason. */
const HOT_TABLES = [
  'payment_requests',
  'payment_request_search',
  'money_ledger',
  'status_history',
  'events',
  'email_outbox',
  'idempotency_keys',
  'jobs',
] as const;

const ROOT = new URL('../../', import.meta.url);
const DOC = 'docs/indexes.md';

interface Reason {
  index: string;
  table: string;
  query: string;
  evidence: string;
}

/** The rows of docs/indexes.md's table of indexes (`| \`index\` | table | on | query | how we know |`). */
function documentedReasons(): Reason[] {
  const text = readFileSync(new URL(DOC, ROOT), 'utf8');
  const section = text.split(/^## The indexes$/m)[1]?.split(/^## /m)[0];
  assert.ok(section, `${DOC} has a section "## The indexes"`);
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      // Cells split on the pipes between cells; a pipe inside a cell would be escaped.
      const cells = line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim());
      return {
        index: (cells[0] ?? '').replace(/`/g, ''),
        table: cells[1] ?? '',
        query: cells[3] ?? '',
        evidence: cells[4] ?? '',
      };
    });
}

/**
 * The code a reason names: each src/ path in backticks and the functions written after it, up
 * to the next ';', ':', ')' or backtick ("find, findAnyTenant"). Only a piece's first word is
 * a name: "create draws it" names create.
 */
function namedCode(query: string): { path: string; names: string[] }[] {
  return [...query.matchAll(/`(src\/[^`\s]+\.ts)`([^;:)`]*)/g)].map((m) => ({
    path: m[1] as string,
    names: (m[2] ?? '')
      .split(',')
      .map((piece) => /^\s*([A-Za-z_]\w*)/.exec(piece)?.[1])
      .filter((n): n is string => n !== undefined),
  }));
}

/** The database's indexes on the hot tables, as `table.index`. */
async function databaseIndexes(q: Queryable): Promise<string[]> {
  const r = await q.query<{ tablename: string; indexname: string }>(
    `SELECT tablename, indexname FROM pg_indexes
      WHERE schemaname = 'public' AND tablename = ANY($1::text[]) ORDER BY tablename, indexname`,
    [HOT_TABLES],
  );
  return r.rows.map((row) => `${row.tablename}.${row.indexname}`);
}

/** What stands between the table and the database: indexes without a reason, reasons without an index. */
function mismatch(reasons: readonly Reason[], indexes: readonly string[]) {
  const named = new Set(reasons.map((r) => `${r.table}.${r.index}`));
  const present = new Set(indexes);
  return {
    withoutReason: indexes.filter((i) => !named.has(i)),
    withoutIndex: [...named].filter((i) => !present.has(i)),
  };
}

describe(`every index of the hot tables has its reason in ${DOC} (${ENGINE})`, () => {
  let t: TestDatabase;
  const reasons = documentedReasons();
  before(async () => {
    t = await createTestDatabase();
  });
  after(() => t.drop());

  test('the table names each index once, on a hot table, with a query and how we know', () => {
    assert.ok(reasons.length > 0, `${DOC} lists no index`);
    const names = reasons.map((r) => r.index);
    assert.deepEqual(
      names.filter((n, i) => names.indexOf(n) !== i),
      [],
      'an index named twice',
    );
    for (const r of reasons) {
      assert.ok((HOT_TABLES as readonly string[]).includes(r.table), `${r.index}: "${r.table}" is not a hot table`);
      assert.ok(r.query.length > 0, `${r.index}: which query it serves`);
      assert.ok(r.evidence.length > 0, `${r.index}: how we know`);
    }
  });

  test('each source file a reason names exists, with the functions named after it', () => {
    const missing = reasons.flatMap((r) =>
      namedCode(r.query).flatMap(({ path, names }) => {
        if (!existsSync(new URL(path, ROOT))) return [`${r.index}: ${path}`];
        const source = readFileSync(new URL(path, ROOT), 'utf8');
        return names.filter((n) => !new RegExp(`\\b${n}\\b`).test(source)).map((n) => `${r.index}: ${path} ${n}`);
      }),
    );
    assert.deepEqual(missing, []);
  });

  test("the database's indexes on the hot tables are exactly the table's", async () => {
    const { withoutReason, withoutIndex } = mismatch(reasons, await databaseIndexes(t.db));
    assert.deepEqual(withoutReason, [], `indexes with no row in ${DOC}: add the query each serves, or drop it`);
    assert.deepEqual(withoutIndex, [], `rows of ${DOC} naming no index of the database`);
  });

  test('a new index without a reason is caught, and so is a reason whose index was dropped', async () => {
    // In a transaction rolled back: the database goes back to its pool as migrations left it.
    const rollBack = new Error('roll back');
    const seen = t.db.transaction(async (tx) => {
      await tx.query('CREATE INDEX payment_requests_no_reason ON payment_requests (guest_phone)');
      await tx.query('DROP INDEX status_history_request');
      const found = mismatch(reasons, await databaseIndexes(tx));
      assert.deepEqual(found.withoutReason, ['payment_requests.payment_requests_no_reason']);
      assert.deepEqual(found.withoutIndex, ['status_history.status_history_request']);
      throw rollBack;
    });
    await assert.rejects(seen, (err) => err === rollBack);
    assert.deepEqual(mismatch(reasons, await databaseIndexes(t.db)), { withoutReason: [], withoutIndex: [] });
  });
});
