import sjson from 'secure-json-parse';
import { errors } from '../domain/index.ts';

/**
 * The deepest nesting of objects and arrays a JSON body may have. Real payloads (the create
 * body and its free `reservation_data`) stay within a handful of levels; a body thousands of
 * levels deep would overflow the stack of every recursive walk after the parser
 * (serialisation, validation) and turn into a 500.
 */
export const MAX_JSON_DEPTH = 32;

// fatal: an invalid byte sequence is an error, never silently replaced by U+FFFD and stored.
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Strict UTF-8, or the documented 400. */
export function decodeUtf8(body: Buffer): string {
  try {
    return utf8.decode(body);
  } catch {
    throw errors.invalidUtf8();
  }
}

/** What one pass over a JSON text finds before anything parses it. */
export interface JsonShape {
  /** Nested deeper than the limit (the scan stops there). */
  tooDeep: boolean;
  /** The first key that one object holds twice, decoded; undefined when none does. */
  duplicateKey?: string;
}

/**
 * The nesting depth of a JSON text and its repeated keys, counted on the text itself (one
 * pass, no recursion) so the checks run before anything recursive sees the value. Brackets
 * inside strings do not count. A parser keeps the last of two equal keys and says nothing: a
 * body holding `"amount"` twice would be read differently here than by a proxy, a log
 * reader or the client's own code, so it is refused. Keys are compared decoded (`"a"` and
 * `"\u0061"` are one key); an escape is decoded only where a key holds one. Text that is not
 * JSON may give any answer: the parser refuses it anyway.
 */
export function scanJson(text: string, maxDepth: number): JsonShape {
  // One entry per open container: the keys seen so far for an object, null for an array.
  const open: (Set<string> | null)[] = [];
  let expectKey = false;
  let duplicateKey: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const start = i + 1;
      i = closingQuote(text, start);
      const keys = open[open.length - 1];
      if (expectKey && keys && duplicateKey === undefined) {
        const raw = text.slice(start, i);
        const key = raw.includes('\\') ? decodeKey(raw) : raw;
        if (key !== undefined && keys.has(key)) duplicateKey = key;
        else if (key !== undefined) keys.add(key);
      }
      expectKey = false;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (open.length >= maxDepth) return { tooDeep: true };
      open.push(c === 0x7b ? new Set() : null);
      expectKey = c === 0x7b;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      open.pop();
    } else if (c === 0x2c /* , */) {
      expectKey = open[open.length - 1] != null;
    }
  }
  return { tooDeep: false, duplicateKey };
}

/** The index of the quote that ends the string starting at `start` (text.length if none). */
function closingQuote(text: string, start: number): number {
  let end = text.indexOf('"', start);
  while (end !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === 0x5c /* \ */) backslashes++;
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
  return text.length;
}

function decodeKey(raw: string): string | undefined {
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return undefined;
  }
}

/**
 * A JSON request body as the API accepts it: strict UTF-8, at most MAX_JSON_DEPTH levels, no
 * key twice in one object, and no `__proto__` or `constructor.prototype` key. Such keys used to be dropped silently, which
 * changed the meaning of a body (a capture of `{"__proto__": {"amount": 1}}` captured the full
 * amount); refusing them tells the client its body was not read as sent.
 */
export function parseJsonBody(text: string): unknown {
  const shape = scanJson(text, MAX_JSON_DEPTH);
  if (shape.tooDeep) throw errors.jsonTooDeep(MAX_JSON_DEPTH);
  let value: unknown;
  try {
    value = sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (err) {
    if (err instanceof SyntaxError && /forbidden (prototype|constructor) property/.test(err.message)) {
      throw errors.forbiddenJsonKey();
    }
    throw errors.invalidJson();
  }
  // After the parse: text that is not JSON at all is told so, whatever the scan made of it.
  if (shape.duplicateKey !== undefined) throw errors.duplicateJsonKey(shape.duplicateKey);
  return value;
}
