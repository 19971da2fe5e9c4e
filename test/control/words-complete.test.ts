import assert from 'node:assert/strict';
import { globSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { CONTROL_LANGUAGES } from '../../src/control/shell/language.ts';

const root = path.resolve(import.meta.dirname, '../..');

/** Every key path of a catalogue, with the kind of value at its end (text or function). */
function shape(value: unknown, at = ''): string[] {
  if (typeof value === 'string') return [`${at}: text`];
  if (typeof value === 'function') return [`${at}: function`];
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => shape(v, at ? `${at}.${k}` : k));
  return [`${at}: ${typeof value}`];
}

const isCatalogue = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && CONTROL_LANGUAGES.every((l) => l in v) && Object.keys(v).length === 3;

describe('every room of the back office speaks English, French and German alike', () => {
  const files = globSync('src/control/**/*words.{ts,js}', { cwd: root })
    .map((f) => f.replace(/\.js$/, '.ts'))
    .sort();
  test('each room keeps its words beside it', () => {
    const rooms = new Set(files.map((f) => path.dirname(f)));
    for (const room of [
      'requests',
      'bulk',
      'new-request',
      'books',
      'settings',
      'admin',
      'sign-in',
      'account',
      'team',
      'today',
      'webhooks',
      'payouts',
      'shell',
    ])
      assert.ok(rooms.has(`src/control/${room}`), `src/control/${room}/words.ts`);
  });

  for (const file of files) {
    test(file, async () => {
      // The runner may have transpiled the tree (.js beside where the .ts was): import what is there.
      const found = globSync(file.replace(/\.ts$/, '.{ts,js}'), { cwd: root })[0] ?? file;
      const mod: Record<string, unknown> = await import(pathToFileURL(path.join(root, found)).href);
      const catalogues = Object.entries(mod).flatMap(([name, v]) => (isCatalogue(v) ? [[name, v] as const] : []));
      assert.ok(catalogues.length > 0, `${file} exports its words as { en, fr, de }`);
      for (const [name, catalogue] of catalogues) {
        const english = shape(catalogue.en).sort();
        for (const language of CONTROL_LANGUAGES) {
          const other = shape(catalogue[language]).sort();
          assert.deepEqual(
            { missing: english.filter((k) => !other.includes(k)), extra: other.filter((k) => !english.includes(k)) },
            { missing: [], extra: [] },
            `${name}.${language} has the keys of ${name}.en`,
          );
        }
      }
    });
  }
});
