import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openDatabase } from '../../src/db/index.ts';
import { pgliteTemplate } from '../helpers/database-template.ts';

// Embedded PGlite on both CI runs: the buffer pool is a start parameter of the WASM engine, so
// each start may load the run's migrated template (no initdb) and still show its own settings.
describe('PGlite buffer pool by role', () => {
  for (const [role, expected] of [
    [undefined, '128MB'],
    ['service', '128MB'],
    ['command', '16MB'],
  ] as const) {
    test(`${role ?? 'default'}: shared_buffers ${expected}, PGlite's other start settings kept`, async () => {
      const db = await openDatabase({ engine: 'pglite', dir: undefined }, role, {
        initialData: await pgliteTemplate(),
      });
      try {
        const r = await db.query<{ shared_buffers: string; search_path: string; tz: string }>(
          "SELECT current_setting('shared_buffers') AS shared_buffers, current_setting('search_path') AS search_path, current_setting('TimeZone') AS tz",
        );
        assert.deepEqual(r.rows[0], { shared_buffers: expected, search_path: 'public', tz: 'UTC' });
      } finally {
        await db.close();
      }
    });
  }
});
