// test-engines: pglite. The document's patterns do not depend on the engine.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

/**
 * Why Rust's `regex` crate (jsonschema-rs and other Rust validators) would refuse to compile a
 * pattern that ECMA-262 compiles; undefined when it would not. It knows what that crate lacks:
 * lookaround, backreferences, surrogate code points (`\uD800` to `\uDFFF`: a Rust `char` cannot
 * be one), ECMA-only escapes (`\cX`, `\0`), atomic groups and possessive quantifiers, and
 * ECMA's empty classes (`[]`, `[^]`).
 */
export function rustRegexRefusal(pattern: string): string | undefined {
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    const rest = pattern.slice(i);
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      if (/[1-9]/.test(next)) return `a backreference \\${next} at ${i}`;
      if (next === 'k' && pattern[i + 2] === '<') return `a named backreference at ${i}`;
      if (next === 'c') return `a control escape \\c at ${i}`;
      if (next === '0') return `a NUL escape \\0 at ${i} (write \\x00)`;
      if (next === 'u') {
        const hex = /^\\u(?:\{([0-9a-fA-F]+)\}|([0-9a-fA-F]{4}))/.exec(rest);
        const code = hex ? Number.parseInt(hex[1] ?? hex[2] ?? '', 16) : Number.NaN;
        if (code >= 0xd800 && code <= 0xdfff) return `a surrogate escape ${hex?.[0]} at ${i}`;
      }
      // An escape's braces (\p{L}, \u{1F600}, \x{7F}) are its own, not a quantifier.
      const braces = /^\\[pPux]\{[^}]*\}/.exec(rest);
      i += braces ? braces[0].length - 1 : 1;
      continue;
    }
    if (c === '(' && /^\(\?<?[=!]/.test(rest)) return `a lookaround ${rest.slice(0, 4)} at ${i}`;
    if (c === '(' && rest.startsWith('(?>')) return `an atomic group at ${i}`;
    if (/[*+?}]/.test(c ?? '') && pattern[i + 1] === '+') return `a possessive quantifier at ${i}`;
    if (c === '[' && (rest.startsWith('[]') || rest.startsWith('[^]'))) return `an empty class at ${i}`;
  }
  return undefined;
}

/** Every `pattern` of the document, with where it is. */
function patterns(node: unknown, at = '#'): { at: string; pattern: string }[] {
  if (Array.isArray(node)) return node.flatMap((n, i) => patterns(n, `${at}/${i}`));
  if (!node || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([k, v]) =>
    k === 'pattern' && typeof v === 'string'
      ? [{ at, pattern: v }]
      : k === 'example' || k === 'examples'
        ? []
        : patterns(v, `${at}/${k}`),
  );
}

describe(`every pattern of the OpenAPI document compiles in Rust's regex as in ECMA-262 (${ENGINE})`, () => {
  let t: TestApp;
  let doc: unknown;
  before(async () => {
    t = await startTestApp();
    doc = (await t.call({ method: 'GET', url: '/api/openapi.json', tenant: null })).json();
  });
  after(() => t.close());

  test('the checker refuses what Rust refuses, and takes what it takes', () => {
    for (const refused of [
      '^[^\\u0000\\uD800-\\uDFFF]*$',
      '^[^\\u{DC00}]$',
      '^(?=a)b$',
      '^(?<!x)y$',
      '^(a)\\1$',
      '^(?<n>a)\\k<n>$',
      '^\\cJ$',
      '^a\\0$',
      '^(?>ab)$',
      '^a*+$',
      '^[^]$',
    ]) {
      assert.ok(rustRegexRefusal(refused), `${refused} is refused`);
    }
    for (const taken of [
      '^[^\\x00]*$',
      '^[!-~]+$',
      '^[^\\x00\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069]*$',
      '^(?:0[1-9]|[1-9][0-9])[0-9]{2}-[0-9]{2}-[0-9]{2}$',
      '^\\\\1$',
      '^\\(\\?=\\)$',
      '^\\p{L}+$',
    ]) {
      assert.equal(rustRegexRefusal(taken), undefined, taken);
    }
  });

  test('each pattern of the served document: ECMA-262 with the u flag compiles it, nothing Rust refuses', () => {
    const found = patterns(doc);
    assert.ok(found.length >= 8, `${found.length} patterns`);
    for (const { at, pattern } of found) {
      assert.doesNotThrow(() => new RegExp(pattern, 'u'), `${at}: ${pattern}`);
      assert.equal(rustRegexRefusal(pattern), undefined, `${at}: ${pattern}`);
    }
  });

  test('the text fields say the rule no portable pattern states: well-formed Unicode, and the description why', () => {
    const schemas = (
      doc as { components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> } }
    ).components.schemas;
    const create = schemas.CreatePaymentRequest?.properties ?? {};
    for (const field of ['guest_first_name', 'guest_last_name', 'guest_phone', 'reservation_ref']) {
      assert.equal(create[field]?.['x-well-formed-unicode'], true, field);
    }
    const info = (doc as { info: { description: string } }).info.description;
    assert.match(info, /unpaired UTF-16 surrogates/);
    assert.match(info, /Rust/);
  });

  test('the introduction leads with what an integrator needs first; the encoding rules come last', () => {
    const info = (doc as { info: { description: string } }).info.description;
    const headings = [...info.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    assert.deepEqual(headings, ['First calls', 'Errors and retries', 'Text encoding rules']);
    const first = info.slice(0, info.indexOf('## '));
    assert.match(first, /deposit.*imprint.*payment link/s);
    assert.doesNotMatch(first, /surrogate|pattern|NUL/, 'no encoding rule before the first calls');
    for (const call of ['X-API-Key', 'POST /api/payment-requests/', 'Idempotency-Key', 'GET /api/events/']) {
      assert.ok(info.indexOf(call) < info.indexOf('## Errors'), `${call} among the first calls`);
    }
  });
});
