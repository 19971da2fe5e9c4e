import fc from 'fast-check';

/**
 * What a hostile client puts in a value: control characters and line separators, huge and
 * negative numbers, impossible dates, NUL, unpaired surrogates, overlong text, broken escapes.
 * Mixed with real values (`real`) so that the handlers behind the first checks are reached too.
 */

const SOME_UUID = '6f1c2a52-7d3e-4a41-9a55-0c8f5b0e2d11';

export const CONTROL_CHARACTERS = [
  '\u0000',
  '\u0001',
  '\u0007',
  '\b',
  '\t',
  '\n',
  '\r',
  '\r\n',
  '\u000b',
  '\u001b',
  '\u007f',
  '\u0085',
  '\u009b',
  '\u2028',
  '\u2029',
  '\u202e',
  '\u200f',
  '\ufeff',
  '\ufffe',
  '\uffff',
  '\ud800',
  '\udfff',
] as const;

const NUMBERS = [
  '0',
  '-0',
  '-1',
  '1.5',
  '12.50',
  '1e2',
  '1e23',
  '1e308',
  '-1e308',
  '5e-324',
  'NaN',
  'Infinity',
  '-Infinity',
  '0x10',
  '2147483648',
  '-2147483649',
  '9007199254740993',
  '9223372036854775807',
  '9223372036854775808',
  '-9223372036854775809',
  '99999999999999999999999999999999',
  ' 1',
  '1 ',
  '+1',
  '01',
];

const DATES = [
  '2026-12-24',
  '2026-02-29',
  '2026-02-31',
  '2026-13-01',
  '2026-00-10',
  '2026-1-1',
  '9999-99-99',
  '0000-00-00',
  '0000-01-01',
  '0001-01-01',
  '9999-12-31',
  '10000-01-01',
  '-271821-04-20',
  '+275760-09-13',
  '-000001-01-01T00:00:00Z',
  '+275760-09-13T00:00:00.000Z',
  '-271821-04-20T00:00:00.000Z',
  '2026-12-24T25:61:61Z',
  '2026-12-24T00:00:00+99:99',
  '1970-01-01T00:00:00Z',
];

/** Percent sequences that decode to nothing valid, kept as they are in a URL or a form. */
export const BROKEN_ESCAPES = ['%', '%2', '%zz', '%00', '%FF', '%C0%AF', '%ED%A0%80', '%F4%90%80%80', '%E2%82'];

/** Text as UTF-8 bytes, each byte outside the unreserved set percent-encoded (never throws). */
export function pct(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9._~-]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

export const base64url = (text: string) => Buffer.from(text).toString('base64url');

/** Pagination cursors: the shapes the service gives, holding impossible dates or ids. */
const CURSORS = [
  ...DATES.map((d) => base64url(`${d}|${SOME_UUID}`)),
  base64url(`2026-01-01T00:00:00.000Z|${SOME_UUID}\u0000`),
  base64url('2026-01-01T00:00:00.000Z|'),
  base64url('|'),
  base64url('\u0000'),
  'not base64 !',
  '====',
];

const controlCharacter = fc.constantFrom(...CONTROL_CHARACTERS);

const SPECIALS = ['', ' ', '/', '../..', '\\', '<script>', '"', "'", '%', '__proto__', 'constructor', '[]', '{}'];

/** Any text a hostile client might send, real values (`real`) included now and then. */
export function hostileText(real: readonly string[] = []): fc.Arbitrary<string> {
  const control = fc.oneof({ weight: 2, arbitrary: fc.constant('\u0000') }, { weight: 5, arbitrary: controlCharacter });
  const pieces: fc.WeightedArbitrary<string>[] = [
    { weight: 2, arbitrary: control },
    {
      weight: 3,
      arbitrary: fc
        .tuple(fc.constantFrom('', 'a', ...real.slice(0, 4)), control, fc.string({ maxLength: 6 }))
        .map((p) => p.join('')),
    },
    { weight: 2, arbitrary: fc.constantFrom(...NUMBERS) },
    { weight: 2, arbitrary: fc.constantFrom(...DATES) },
    { weight: 1, arbitrary: fc.constantFrom(...CURSORS) },
    { weight: 1, arbitrary: fc.string({ maxLength: 16 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 16 }) },
    { weight: 1, arbitrary: fc.integer({ min: 101, max: 5000 }).map((n) => 'x'.repeat(n)) },
    { weight: 1, arbitrary: fc.constantFrom(...SPECIALS) },
  ];
  if (real.length > 0) pieces.push({ weight: 2, arbitrary: fc.constantFrom(...real) });
  return fc.oneof(...pieces);
}

/** A value as it goes in a URL or a form: encoded text, or a raw broken escape. */
export function encodedValue(real: readonly string[] = []): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 8, arbitrary: hostileText(real).map(pct) },
    { weight: 1, arbitrary: fc.constantFrom(...BROKEN_ESCAPES) },
  );
}

/** A JSON value: hostile text, numbers past every range, and nesting. */
export function hostileJson(real: readonly string[] = []): fc.Arbitrary<unknown> {
  const leaf = fc.oneof(
    hostileText(real),
    fc.constantFrom(0, -0, -1, 0.1, 12.345, 1e21, 1e308, -1e308, 5e-324, 2 ** 53 + 2, 2 ** 63, Number.MAX_SAFE_INTEGER),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
  );
  return fc.oneof(
    { weight: 6, arbitrary: leaf },
    { weight: 1, arbitrary: fc.array(leaf, { maxLength: 4 }) },
    { weight: 1, arbitrary: fc.dictionary(hostileText(), leaf, { maxKeys: 4 }) },
  );
}

/**
 * A header value Node's parser lets through (visible ASCII, space, tab, bytes 0x80 to 0xFF
 * read as Latin-1): what any client can put in a header. Control characters in headers are
 * the raw-socket cases' business.
 */
export const wireHeaderValue: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 40 }).map((s) => s.replace(/[^\t\x20-\x7e]/g, '')),
  fc
    .uint8Array({ maxLength: 24 })
    .map((bytes) =>
      String.fromCharCode(...[...bytes].map((b) => (b < 0x20 || b === 0x7f ? (b % 2 === 0 ? 0x20 : 0x09) : b))),
    ),
  fc.constantFrom(...NUMBERS, ...DATES, '', ' ', 'é', 'Ã©', '*', ',', ';', '=', 'x'.repeat(8000)),
);

/** Every leaf of a JSON value as a dotted path (`reservation_data.checkin`, `transactions.0.amount`). */
export function leafPaths(value: unknown, prefix = ''): string[] {
  if (typeof value !== 'object' || value === null) return prefix ? [prefix] : [];
  const entries = Object.entries(value);
  if (entries.length === 0) return prefix ? [prefix] : [];
  return entries.flatMap(([k, v]) => leafPaths(v, prefix ? `${prefix}.${k}` : k));
}

/** A copy of `value` with the leaf at `path` set (objects made on the way where missing). */
export function withLeaf(value: unknown, path: string, leaf: unknown): unknown {
  const [head = '', ...rest] = path.split('.');
  const copy: Record<string, unknown> = Array.isArray(value)
    ? (Object.assign([], value) as unknown as Record<string, unknown>)
    : typeof value === 'object' && value !== null
      ? { ...(value as Record<string, unknown>) }
      : {};
  copy[head] = rest.length === 0 ? leaf : withLeaf(copy[head], rest.join('.'), leaf);
  return copy;
}
