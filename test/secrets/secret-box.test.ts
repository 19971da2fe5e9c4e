import assert from 'node:assert/strict';
import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import {
  deriveKey,
  keyRing,
  parseOldKeys,
  SealedValueError,
  sealedKeyId,
  secretBox,
  singleKey,
} from '../../src/secrets/index.ts';

const A = 'k'.repeat(64);
const B = 'j'.repeat(64);

/** A value as payreq sealed them before keys had ids: `v1:` and the bare AES-GCM data. */
function legacySeal(key: string, plain: string, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', deriveKey(key, 'secret-box:card-token'), iv);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return `v1:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
}

describe('secret box (card tokens at rest)', () => {
  const box = secretBox(singleKey(A), 'card-token');

  test('a sealed value opens with the same key and context, and never shows the plain text', () => {
    const sealed = box.seal('tok_4242', 'request-1');
    assert.ok(!sealed.includes('tok_4242'));
    assert.notEqual(box.seal('tok_4242', 'request-1'), sealed, 'a fresh nonce each time');
    assert.equal(box.open(sealed, 'request-1'), 'tok_4242');
  });

  test('another context, another key or a flipped byte does not open', () => {
    const sealed = box.seal('tok_4242', 'request-1');
    assert.throws(() => box.open(sealed, 'request-2'));
    assert.throws(() => secretBox(singleKey(B), 'card-token').open(sealed, 'request-1'));
    const prefix = sealed.slice(0, sealed.lastIndexOf(':') + 1);
    const raw = Buffer.from(sealed.slice(prefix.length), 'base64url');
    raw[raw.length - 1] = (raw[raw.length - 1] ?? 0) ^ 1;
    assert.throws(() => box.open(`${prefix}${raw.toString('base64url')}`, 'request-1'));
  });

  test('keys for different purposes differ', () => {
    assert.notDeepEqual(deriveKey('s'.repeat(64), 'a'), deriveKey('s'.repeat(64), 'b'));
  });
});

describe('secret box with key ids (rotation)', () => {
  test('a value names the key that sealed it: v2:<id>:', () => {
    const sealed = secretBox(keyRing({ id: '2025a', key: B }), 'card-token').seal('tok', 'r');
    assert.match(sealed, /^v2:2025a:[\w-]+$/);
    assert.equal(sealedKeyId(sealed), '2025a');
  });

  test('a v1 value (sealed before ids) opens with the key whose id is v1, the default id', () => {
    const legacy = legacySeal(A, 'tok_old', 'request-1');
    assert.equal(sealedKeyId(legacy), 'v1');
    // An install that never set SECRET_KEY_ID: its key is v1.
    assert.equal(secretBox(singleKey(A), 'card-token').open(legacy, 'request-1'), 'tok_old');
    // Rotated: the old key listed as v1.
    const rotated = secretBox(keyRing({ id: 'k2', key: B }, [{ id: 'v1', key: A }]), 'card-token');
    assert.equal(rotated.open(legacy, 'request-1'), 'tok_old');
    assert.equal(rotated.isCurrent(legacy), false);
  });

  test('rotating: sealed with A, opened by a ring with B current and A old; new values go under B', () => {
    const underA = secretBox(keyRing({ id: 'a', key: A }), 'card-token').seal('tok_a', 'r1');
    const ring = secretBox(keyRing({ id: 'b', key: B }, [{ id: 'a', key: A }]), 'card-token');
    assert.equal(ring.open(underA, 'r1'), 'tok_a');
    const resealed = ring.seal(ring.open(underA, 'r1'), 'r1');
    assert.ok(ring.isCurrent(resealed));
    assert.equal(secretBox(keyRing({ id: 'b', key: B }), 'card-token').open(resealed, 'r1'), 'tok_a');
  });

  test('a value under an id that is not configured is a typed error naming the id, never the value', () => {
    const underA = secretBox(keyRing({ id: 'gone', key: A }), 'card-token').seal('tok_secret', 'r1');
    const box = secretBox(keyRing({ id: 'b', key: B }), 'card-token');
    assert.throws(
      () => box.open(underA, 'r1'),
      (err: unknown) =>
        err instanceof SealedValueError &&
        err.reason === 'unknown_key' &&
        err.keyId === 'gone' &&
        err.message.includes('"gone"') &&
        !err.message.includes('tok_secret'),
    );
    // The right id with another key behind it: unreadable, naming the id.
    const impostor = secretBox(keyRing({ id: 'gone', key: B }), 'card-token');
    assert.throws(
      () => impostor.open(underA, 'r1'),
      (err: unknown) => err instanceof SealedValueError && err.reason === 'unreadable' && err.keyId === 'gone',
    );
    assert.throws(
      () => box.open('v9:x', 'r1'),
      (err: unknown) => err instanceof SealedValueError && err.reason === 'format',
    );
  });

  test('SECRET_KEYS_OLD: id:key entries separated by commas; ids checked and distinct', () => {
    assert.deepEqual(parseOldKeys(undefined), []);
    assert.deepEqual(parseOldKeys('v1:abc:def, k2:xyz'), [
      { id: 'v1', key: 'abc:def' },
      { id: 'k2', key: 'xyz' },
    ]);
    assert.throws(() => parseOldKeys('justakey'), /entry 1 must be ID:KEY/);
    assert.throws(() => parseOldKeys('v1:a,bad id:b'), /entry 2: a key id/);
    assert.throws(() => parseOldKeys('v1:'), /has no key/);
    assert.throws(() => keyRing({ id: 'v1', key: A }, [{ id: 'v1', key: B }]), /SECRET_KEY_ID/);
    assert.throws(
      () =>
        keyRing({ id: 'k3', key: A }, [
          { id: 'v1', key: B },
          { id: 'v1', key: A },
        ]),
      /twice/,
    );
  });
});
