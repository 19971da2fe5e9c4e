import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { escapeHtml, html } from '../../src/html/index.ts';

// Written out character by character, independently of the module's regular expressions.
const ENTITY: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};
const reference = (text: string) => [...text].map((c) => ENTITY[c] ?? c).join('');

describe('html escaping', () => {
  test('every string escapes as the character-by-character reference, with or without specials', () => {
    const specialHeavy = fc.string({ unit: fc.constantFrom('&', '<', '>', '"', "'", '`', 'a', 'é', ' ', '\u2028') });
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), specialHeavy), (text) => {
        assert.equal(escapeHtml(text), reference(text));
      }),
      { numRuns: 2000 },
    );
  });

  test('a special at the start, at the end or alone is escaped; a plain string comes back as is', () => {
    assert.equal(escapeHtml('plain plain plain <'), 'plain plain plain &lt;');
    assert.equal(escapeHtml('<b>'), '&lt;b&gt;');
    assert.equal(escapeHtml('"'), '&quot;');
    assert.equal(escapeHtml('no specials'), 'no specials');
  });

  test('interpolated values are escaped, nested fragments are not escaped twice', () => {
    const name = `<script>alert("x")</script> & 'co'`;
    const inner = html`<b>${name}</b>`;
    const page = html`<p title="${name}">${inner}${[html`<i>${1}</i>`, null, false, undefined, 'a&b']}</p>`;
    assert.equal(page.value, `<p title="${reference(name)}"><b>${reference(name)}</b><i>1</i>a&amp;b</p>`);
  });
});
