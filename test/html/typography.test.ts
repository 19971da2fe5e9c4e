import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CATALOGUES } from './catalogues.ts';

/** A straight apostrophe between two letters: "n'a", "provider's". Readers get ’ everywhere. */
const STRAIGHT_APOSTROPHE = /\p{L}'\p{L}/u;

/**
 * Every text a catalogue can produce, with where it came from: its strings, and what its
 * functions return for placeholder arguments (they only interpolate, so any value shows the
 * fixed words around it).
 */
function textsOf(value: unknown, path: string, out: [string, string][]): void {
  if (typeof value === 'string') out.push([path, value]);
  else if (typeof value === 'function') {
    const args = Array.from({ length: value.length }, () => 'X');
    let produced: unknown;
    try {
      produced = value(...args);
    } catch {
      // A function that needs a richer argument (a number's methods, an object): its words are
      // checked through the strings of the same catalogue and the pages' own tests.
      return;
    }
    textsOf(produced, `${path}()`, out);
  } else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) textsOf(v, `${path}.${key}`, out);
  }
}

describe('typography of what guests and staff read', () => {
  for (const [name, catalogue] of Object.entries(CATALOGUES)) {
    test(`${name}: apostrophes are typographic in every language`, () => {
      const texts: [string, string][] = [];
      textsOf(catalogue, name, texts);
      assert.ok(texts.length >= 6, `${name}: the walk found its strings (${texts.length})`);
      const straight = texts.filter(([, text]) => STRAIGHT_APOSTROPHE.test(text)).map(([path]) => path);
      assert.deepEqual(straight, []);
    });
  }
});

describe('German: one word for one thing, as the Team page says it', () => {
  test('the books are "Buchhaltung", a capture is "Abbuchung" (never "Einziehung"), the viewer role a noun', () => {
    const german: [string, string][] = [];
    for (const [name, catalogue] of Object.entries(CATALOGUES)) {
      const de = (catalogue as Record<string, unknown>).de;
      if (de) textsOf(de, name, german);
    }
    assert.ok(german.length > 500, `${german.length} German texts`);
    const mixed = german.filter(([, text]) => /Bücher|Einziehung|eingezogen|einzieh/.test(text)).map(([p]) => p);
    assert.deepEqual(mixed, []);
    const shell = CATALOGUES.control.de;
    assert.equal(shell.navBooks, 'Buchhaltung');
    assert.equal(shell.roleNames.viewer, 'Lesezugriff');
  });
});
