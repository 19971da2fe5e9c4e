import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { plainAddress, proxyPeers } from '../../src/connections/index.ts';

// Decided at accept from the socket's address alone, with TRUST_PROXY's own words.
describe('which peers are trusted proxies (exempt from the per-address cap)', () => {
  test('no TRUST_PROXY: nobody; a hop count or true: every peer (the nearest hop is the proxy)', () => {
    assert.equal(proxyPeers(false)('127.0.0.1'), false);
    assert.equal(proxyPeers(0)('127.0.0.1'), false);
    assert.equal(proxyPeers(1)('203.0.113.9'), true);
    assert.equal(proxyPeers(true)('203.0.113.9'), true);
  });

  test('addresses, CIDR ranges and proxy-addr names; IPv4 seen through a dual-stack socket', () => {
    const isProxy = proxyPeers(['10.0.1.0/24', '192.0.2.7', 'loopback', 'fd00::/8']);
    assert.equal(isProxy('10.0.1.200'), true);
    assert.equal(isProxy('10.0.2.1'), false);
    assert.equal(isProxy('192.0.2.7'), true);
    assert.equal(isProxy('192.0.2.8'), false);
    assert.equal(isProxy('127.0.0.5'), true);
    assert.equal(isProxy('::1'), true);
    assert.equal(isProxy('::ffff:10.0.1.3'), true);
    assert.equal(isProxy('fd12::1'), true);
    assert.equal(isProxy('2001:db8::1'), false);
    assert.equal(isProxy('not an address'), false);
    assert.equal(proxyPeers(['uniquelocal'])('172.20.0.1'), true);
  });

  test('an IPv4 address through a dual-stack socket counts as itself', () => {
    assert.equal(plainAddress('::ffff:203.0.113.9'), '203.0.113.9');
    assert.equal(plainAddress('2001:db8::1'), '2001:db8::1');
  });
});
