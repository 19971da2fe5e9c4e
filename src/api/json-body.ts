import sjson from 'secure-json-parse';
import { errors } from '../domain/index.js';

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

/**
 * The nesting depth of a JSON text, counted on the text itself (one pass, no recursion) so
 * the check runs before anything recursive sees the value. Brackets inside strings do not count.
 */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > max) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  return false;
}

/**
 * A JSON request body as the API accepts it: strict UTF-8, at most MAX_JSON_DEPTH levels, and
 * no `__proto__` or `constructor.prototype` key. Such keys used to be dropped silently, which
 * changed the meaning of a body (a capture of `{"__proto__": {"amount": 1}}` captured the full
 * amount); refusing them tells the client its body was not read as sent.
 */
export function parseJsonBody(text: string): unknown {
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) throw errors.jsonTooDeep(MAX_JSON_DEPTH);
  try {
    return sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (err) {
    if (err instanceof SyntaxError && /forbidden (prototype|constructor) property/.test(err.message)) {
      throw errors.forbiddenJsonKey();
    }
    throw errors.invalidJson();
  }
}
