import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { deriveKey, secretBox } from '../../src/secrets/index.js';

describe('secret box (card tokens at rest)', () => {
  const box = secretBox('k'.repeat(64));

  test('a sealed value opens with the same key and context, and never shows the plain text', () => {
    const sealed = box.seal('tok_4242', 'request-1');
    assert.ok(!sealed.includes('tok_4242'));
    assert.notEqual(box.seal('tok_4242', 'request-1'), sealed, 'a fresh nonce each time');
    assert.equal(box.open(sealed, 'request-1'), 'tok_4242');
  });

  test('another context, another key or a flipped byte does not open', () => {
    const sealed = box.seal('tok_4242', 'request-1');
    assert.throws(() => box.open(sealed, 'request-2'));
    assert.throws(() => secretBox('j'.repeat(64)).open(sealed, 'request-1'));
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    raw[raw.length - 1] = (raw[raw.length - 1] ?? 0) ^ 1;
    assert.throws(() => box.open(`v1:${raw.toString('base64url')}`, 'request-1'));
  });

  test('keys for different purposes differ', () => {
    assert.notDeepEqual(deriveKey('s'.repeat(64), 'a'), deriveKey('s'.repeat(64), 'b'));
  });
});
