import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import tls from 'node:tls';
import {
  addressAllowed,
  checkHost,
  classifyAddress,
  ForbiddenAddressError,
  postOnce,
  type Resolve,
} from '../../src/webhooks/index.ts';
import { PMS_CERT, PMS_KEY } from './tls-fixture.ts';

const timeouts = { connectTimeoutMs: 2000, timeoutMs: 5000 };

/** A resolver that answers these addresses for every name: DNS as an attacker would set it. */
const resolvingTo =
  (...addresses: string[]): Resolve =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('the SSRF guard, on its own', () => {
  test('classifies literal addresses, v4 and v6, embedded v4 included', () => {
    const cases: [string, string | undefined][] = [
      ['127.0.0.1', 'loopback'],
      ['127.255.0.9', 'loopback'],
      ['::1', 'loopback'],
      ['[::1]', 'loopback'],
      ['0.0.0.0', 'unspecified'],
      ['::', 'unspecified'],
      ['10.0.0.1', 'private'],
      ['172.16.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['192.168.1.10', 'private'],
      ['fc00::1', 'private'],
      ['fdff:ffff::1', 'private'],
      ['100.64.0.1', 'shared'],
      ['100.127.255.254', 'shared'],
      ['169.254.169.254', 'metadata'],
      ['fd00:ec2::254', 'metadata'],
      ['169.254.10.1', 'link-local'],
      ['fe80::1', 'link-local'],
      ['febf:ffff::1', 'link-local'],
      ['fe80::1%eth0', 'link-local'],
      ['224.0.0.1', 'multicast'],
      ['239.255.255.250', 'multicast'],
      ['ff02::1', 'multicast'],
      ['255.255.255.255', 'reserved'],
      // IPv4-mapped IPv6, both spellings, and the other ways to carry an IPv4 address.
      ['::ffff:127.0.0.1', 'loopback'],
      ['::ffff:7f00:1', 'loopback'],
      ['::ffff:169.254.169.254', 'metadata'],
      ['::ffff:10.1.2.3', 'private'],
      ['64:ff9b::7f00:1', 'loopback'],
      ['2002:a9fe:a9fe::1', 'metadata'],
      // Public: just outside the ranges.
      ['8.8.8.8', undefined],
      ['172.32.0.1', undefined],
      ['100.128.0.1', undefined],
      ['11.0.0.1', undefined],
      ['2606:4700:4700::1111', undefined],
      ['::ffff:8.8.8.8', undefined],
      ['not an address', undefined],
    ];
    for (const [ip, expected] of cases) assert.equal(classifyAddress(ip), expected, ip);
  });

  test('the operator setting allows loopback, private and CGNAT, never metadata, link-local or multicast', () => {
    for (const ip of ['127.0.0.1', '::1', '10.0.0.1', '192.168.0.5', 'fd12::1', '100.64.1.1', '::ffff:127.0.0.1']) {
      assert.equal(addressAllowed(ip, false), false, ip);
      assert.equal(addressAllowed(ip, true), true, ip);
    }
    for (const ip of ['169.254.169.254', 'fe80::1', '224.0.0.1', 'ff02::1', '0.0.0.0', '::', 'fd00:ec2::254']) {
      assert.equal(addressAllowed(ip, true), false, ip);
    }
    assert.equal(addressAllowed('8.8.8.8', false), true);
  });

  test('registration: a name is refused if any address it resolves to is forbidden', async () => {
    await assert.rejects(checkHost('localhost', { allowPrivate: false }), ForbiddenAddressError);
    await assert.rejects(
      checkHost('pms.example.com', { allowPrivate: false, resolve: resolvingTo('93.184.215.14', '127.0.0.1') }),
      /pms\.example\.com resolves to 127\.0\.0\.1, a loopback address/,
    );
    await assert.rejects(
      checkHost('pms.example.com', { allowPrivate: true, resolve: resolvingTo('169.254.169.254') }),
      /metadata/,
    );
    await assert.rejects(checkHost('[::ffff:127.0.0.1]', { allowPrivate: false }), /loopback/);
    await checkHost('pms.example.com', { allowPrivate: false, resolve: resolvingTo('93.184.215.14') });
    await checkHost('localhost', { allowPrivate: true });
    // Nothing to reach yet: let through, and checked again at every delivery.
    await checkHost('pms.example.com', {
      allowPrivate: false,
      resolve: async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
      },
    });
  });

  test('delivery: the connection only goes to a checked address, whatever the name resolves to now', async () => {
    let hits = 0;
    const server = createServer((_req, res) => {
      hits++;
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      // DNS rebinding: the name was public when registered, it answers 127.0.0.1 now.
      await assert.rejects(
        postOnce(`http://pms.example.com:${port}/`, '{}', {}, timeouts, {
          allowPrivate: false,
          resolve: resolvingTo('127.0.0.1'),
        }),
        /refused: pms\.example\.com resolves to 127\.0\.0\.1, a loopback address/,
      );
      await assert.rejects(
        postOnce(`http://localhost:${port}/`, '{}', {}, timeouts, { allowPrivate: false }),
        ForbiddenAddressError,
      );
      for (const literal of ['127.0.0.1', '[::ffff:127.0.0.1]', '[::1]', '0.0.0.0', '169.254.169.254']) {
        await assert.rejects(
          postOnce(`http://${literal}:${port}/`, '{}', {}, timeouts, { allowPrivate: false }),
          ForbiddenAddressError,
          literal,
        );
      }
      assert.equal(hits, 0, 'nothing reached the server');
      // The same name with private targets allowed does reach it: the refusals above were the guard's.
      const answer = await postOnce(`http://pms.example.com:${port}/`, '{}', {}, timeouts, {
        allowPrivate: true,
        resolve: resolvingTo('127.0.0.1'),
      });
      assert.equal(answer.status, 200);
      assert.equal(hits, 1);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  test('over TLS, the checked address is connected to while the certificate is checked against the name (SNI)', async () => {
    const names: string[] = [];
    const server = createTlsServer(
      {
        cert: PMS_CERT,
        key: PMS_KEY,
        SNICallback: (name, done) => {
          names.push(name);
          done(null, tls.createSecureContext({ cert: PMS_CERT, key: PMS_KEY }));
        },
      },
      (_req, res) => res.end('ok'),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const post = (host: string) =>
      postOnce(`https://${host}:${port}/`, '{}', {}, timeouts, {
        allowPrivate: true,
        resolve: resolvingTo('127.0.0.1'),
      });
    const defaults = tls.getCACertificates('default');
    try {
      // Not trusted: the certificate is verified, not waved through because the address was checked.
      await assert.rejects(post('pms.example.com'), /self[- ]signed/i);
      assert.deepEqual(names, ['pms.example.com'], 'the name went out as SNI');
      // Trusted (for this test only), it is accepted for its own name and no other.
      tls.setDefaultCACertificates([...defaults, PMS_CERT]);
      assert.equal((await post('pms.example.com')).status, 200);
      await assert.rejects(post('other.example.com'), /altnames|does not match|ERR_TLS_CERT_ALTNAME_INVALID/i);
    } finally {
      tls.setDefaultCACertificates(defaults);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
