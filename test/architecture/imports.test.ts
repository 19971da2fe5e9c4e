import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { cycles, importGraph } from './import-graph.ts';

// The sources themselves (type-only imports count), wherever the runner put the tests.
const root = process.env.PAYREQ_TEST_CHECKOUT ?? path.resolve(import.meta.dirname, '../..');
const graph = importGraph(root);

/** The room a file of src/ lives in: its top folder, or under src/control/ the folder below. */
function roomOf(file: string): string {
  const parts = file.split('/');
  const depth = parts[1] === 'control' ? 3 : 2;
  return parts.length > depth ? parts.slice(0, depth).join('/') : parts.slice(0, depth - 1).join('/');
}

describe('the house: rooms with one door, no circle', () => {
  test('the graph is read (a broken reader would find no circle in nothing)', () => {
    assert.ok(graph.size > 300, `${graph.size} source files`);
    const edges = [...graph.values()].reduce((n, targets) => n + targets.length, 0);
    assert.ok(edges > 800, `${edges} imports`);
  });

  test('no file imports itself through others, type-only imports included', () => {
    assert.deepEqual(cycles(graph), []);
  });

  test('no room imports another that imports it back', () => {
    const rooms = new Map<string, string[]>();
    for (const [file, targets] of graph) {
      const from = roomOf(file);
      const list = rooms.get(from) ?? [];
      for (const t of targets) if (roomOf(t) !== from && graph.has(t)) list.push(roomOf(t));
      rooms.set(from, list);
    }
    assert.deepEqual(cycles(rooms), []);
  });

  test('a room of the back office enters another only by its door (index.ts)', () => {
    const through = [...graph].flatMap(([file, targets]) =>
      targets
        .filter((t) => t.startsWith('src/control/') && roomOf(t) !== roomOf(file) && path.basename(t) !== 'index.ts')
        .map((t) => `${file} -> ${t}`),
    );
    assert.deepEqual(through, []);
  });

  // Every top-level room of src/ is entered by its door too, with no exception: what must stay
  // light to load (the configuration's parsing) lives in a light room of its own.
  test('every room of src/ enters another only by its door (index.ts)', () => {
    const topRoom = (file: string) => file.split('/').slice(0, 2).join('/');
    const through = [...graph].flatMap(([file, targets]) =>
      targets
        .filter((t) => t.split('/').length > 2 && topRoom(t) !== topRoom(file) && path.basename(t) !== 'index.ts')
        .map((t) => `${file} -> ${t}`),
    );
    assert.deepEqual(through, []);
  });
});
