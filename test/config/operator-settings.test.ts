import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { PRODUCTION_SECRET_KEY } from '../helpers/production-secret.ts';

const PRODUCTION = { NODE_ENV: 'production', SECRET_KEY: PRODUCTION_SECRET_KEY, SANDBOX_IN_PRODUCTION: 'true' };

function refused(env: Record<string, string>, message: RegExp): void {
  assert.throws(
    () => loadConfig(env),
    (err: unknown) => err instanceof ConfigError && message.test(err.message) && !err.message.includes('\n'),
    JSON.stringify(env),
  );
}

describe('operator settings: TRUST_PROXY, SECRET_KEY, timeouts, API_DOCS, METRICS_TOKEN, PASSWORD_HASH_COST', () => {
  test('TRUST_PROXY: a number is that many proxies; a list holds addresses and CIDR ranges', () => {
    assert.equal(loadConfig({}).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: '1' }).trustProxy, 1, '"1" is one hop, not the address "1"');
    assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
    assert.equal(loadConfig({ TRUST_PROXY: '0' }).trustProxy, false);
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.5, 10.1.0.0/16,::1,fd00::/8,loopback' }).trustProxy, [
      '10.0.0.5',
      '10.1.0.0/16',
      '::1',
      'fd00::/8',
      'loopback',
    ]);
    for (const bad of ['nginx', '10.0.0.0/33', '1.2.3', '10.0.0.1/8/2', '::1/129', 'yes', '11']) {
      refused({ TRUST_PROXY: bad }, /^TRUST_PROXY must be/);
    }
  });

  test('TRUST_PROXY=true is refused in production (any client could pick its address and protocol)', () => {
    refused({ ...PRODUCTION, TRUST_PROXY: 'true' }, /^TRUST_PROXY=true lets any client/);
    assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true, 'allowed in development');
    assert.deepEqual(loadConfig({ ...PRODUCTION, TRUST_PROXY: '127.0.0.1' }).trustProxy, ['127.0.0.1']);
  });

  test('SECRET_KEY in production must look random, not merely long', () => {
    for (const weak of ['a'.repeat(32), 's'.repeat(64), 'ab'.repeat(32), '0123456789abcdef0123456789abcdef']) {
      refused({ ...PRODUCTION, SECRET_KEY: weak }, /openssl rand -base64 48/);
    }
    assert.equal(loadConfig(PRODUCTION).secretKey, PRODUCTION_SECRET_KEY);
    // Outside production only the length rule applies (tests and demos use simple keys).
    assert.equal(loadConfig({ SECRET_KEY: 'a'.repeat(32) }).secretKey, 'a'.repeat(32));
  });

  test('SECRET_KEY_ID and SECRET_KEYS_OLD: v1 by default, checked at start, every key as strong as SECRET_KEY', () => {
    const d = loadConfig(PRODUCTION);
    assert.equal(d.secretKeyId, 'v1', 'an install that never set an id keeps opening its v1: values');
    assert.deepEqual(d.oldSecretKeys, []);
    const OTHER = 'Zq9h1Kx0u3+Vb7mNw2LrT5yP8sQe4DfGa6HcJiUo0kXlRnYzWvBtMp1E2dSgF3Ah';
    const rotated = loadConfig({
      ...PRODUCTION,
      SECRET_KEY: OTHER,
      SECRET_KEY_ID: '2025a',
      SECRET_KEYS_OLD: `v1:${PRODUCTION_SECRET_KEY}`,
    });
    assert.equal(rotated.secretKeyId, '2025a');
    assert.deepEqual(rotated.oldSecretKeys, [{ id: 'v1', key: PRODUCTION_SECRET_KEY }]);
    refused({ ...PRODUCTION, SECRET_KEY_ID: 'has:colon' }, /^SECRET_KEY_ID: a key id is 1 to 32/);
    refused({ ...PRODUCTION, SECRET_KEYS_OLD: PRODUCTION_SECRET_KEY }, /^SECRET_KEYS_OLD entry 1 must be ID:KEY/);
    refused({ ...PRODUCTION, SECRET_KEYS_OLD: `v1:${OTHER}` }, /"v1", which is SECRET_KEY_ID/);
    refused({ ...PRODUCTION, SECRET_KEY_ID: 'k3', SECRET_KEYS_OLD: `v1:${OTHER},v1:${OTHER}` }, /"v1" twice/);
    // The entropy rule applies to retired keys too in production; the length rule everywhere.
    refused(
      { ...PRODUCTION, SECRET_KEY_ID: 'k2', SECRET_KEYS_OLD: `v1:${'a'.repeat(40)}` },
      /^SECRET_KEYS_OLD key "v1" looks guessable/,
    );
    refused(
      { SECRET_KEY: 'a'.repeat(32), SECRET_KEY_ID: 'k2', SECRET_KEYS_OLD: 'v1:short' },
      /"v1" must be at least 32/,
    );
    refused({ SECRET_KEYS_OLD: `v1:${'a'.repeat(32)}` }, /SECRET_KEYS_OLD needs SECRET_KEY/);
  });

  test('timeouts: defaults, overrides, and a headers timeout longer than the request one refused', () => {
    const d = loadConfig({});
    assert.deepEqual(
      [d.requestTimeoutMs, d.headersTimeoutMs, d.keepAliveTimeoutMs, d.databaseTimeoutMs],
      [30_000, 10_000, 72_000, 1500],
    );
    const c = loadConfig({ REQUEST_TIMEOUT_MS: '5000', HEADERS_TIMEOUT_MS: '2000', KEEP_ALIVE_TIMEOUT_MS: '65000' });
    assert.deepEqual([c.requestTimeoutMs, c.headersTimeoutMs, c.keepAliveTimeoutMs], [5000, 2000, 65_000]);
    assert.equal(loadConfig({ REQUEST_TIMEOUT_MS: '500' }).headersTimeoutMs, 500, 'defaults to at most the request');
    refused({ REQUEST_TIMEOUT_MS: '1000', HEADERS_TIMEOUT_MS: '2000' }, /HEADERS_TIMEOUT_MS must not be longer/);
    refused({ REQUEST_TIMEOUT_MS: '0' }, /REQUEST_TIMEOUT_MS must be a whole number/);
  });

  test('connections: MAX_CONNECTIONS_PER_ADDRESS defaults to 128 (a quarter of a small MAX_CONNECTIONS), below the cap', () => {
    const d = loadConfig({});
    assert.deepEqual([d.maxConnections, d.maxConnectionsPerAddress], [1024, 128]);
    assert.equal(loadConfig({ MAX_CONNECTIONS: '100' }).maxConnectionsPerAddress, 25);
    assert.equal(loadConfig({ MAX_CONNECTIONS_PER_ADDRESS: '500' }).maxConnectionsPerAddress, 500);
    refused(
      { MAX_CONNECTIONS_PER_ADDRESS: '1024' },
      /^MAX_CONNECTIONS_PER_ADDRESS must be a whole number from 1 to 1023/,
    );
    refused({ MAX_CONNECTIONS_PER_ADDRESS: '0' }, /^MAX_CONNECTIONS_PER_ADDRESS must be a whole number/);
  });

  test('API_DOCS: on by default except in production; on or off when set', () => {
    assert.equal(loadConfig({}).apiDocs, true);
    assert.equal(loadConfig(PRODUCTION).apiDocs, false);
    assert.equal(loadConfig({ ...PRODUCTION, API_DOCS: 'on' }).apiDocs, true);
    assert.equal(loadConfig({ API_DOCS: 'off' }).apiDocs, false);
    refused({ API_DOCS: 'maybe' }, /^API_DOCS must be on or off/);
  });

  test('METRICS_TOKEN: unset means no /metrics; a short one is refused', () => {
    assert.equal(loadConfig({}).metricsToken, undefined);
    assert.equal(loadConfig({ METRICS_TOKEN: 'x9'.repeat(12) }).metricsToken, 'x9'.repeat(12));
    refused({ METRICS_TOKEN: 'short' }, /^METRICS_TOKEN must be at least 16/);
    refused({ METRICS_TOKEN: 'has a space in it, long enough' }, /^METRICS_TOKEN must be at least 16/);
  });
  test('IN_DOUBT_GRACE_SECONDS: refused shorter than twice the longest a provider call can last', () => {
    // 15 s bound: a Lyra call makes up to 3 requests of 10 s each, 30 s in all; twice that is 60.
    refused(
      { IN_DOUBT_GRACE_SECONDS: '0' },
      /^IN_DOUBT_GRACE_SECONDS \(0 s\) .* \(30 s with PROVIDER_TIMEOUT_MS=15000\)/,
    );
    refused({ IN_DOUBT_GRACE_SECONDS: '59' }, /at least 60/);
    assert.equal(loadConfig({ IN_DOUBT_GRACE_SECONDS: '60' }).inDoubtGraceSeconds, 60);
    assert.equal(loadConfig({}).inDoubtGraceSeconds, 120);
    // A shorter provider bound allows a shorter grace: 300 ms, so Lyra's 3 requests of 270 ms, or
    // Stripe's two tries of 90 ms, a try's length for its rate limiter, a hold's charge read and
    // the SDK's half-second pause (0.86 s).
    refused({ IN_DOUBT_GRACE_SECONDS: '1', PROVIDER_TIMEOUT_MS: '300' }, /\(0\.86 s with PROVIDER_TIMEOUT_MS=300\)/);
    assert.equal(loadConfig({ IN_DOUBT_GRACE_SECONDS: '2', PROVIDER_TIMEOUT_MS: '300' }).inDoubtGraceSeconds, 2);
    // A bound longer than the default grace's half needs a longer grace.
    refused({ PROVIDER_TIMEOUT_MS: '61000' }, /\(61 s with PROVIDER_TIMEOUT_MS=61000\): set it to at least 122/);
  });

  test('PASSWORD_HASH_COST: 17 by default; lower only outside production; out of range refused', () => {
    assert.equal(loadConfig({}).passwordHashCost, 17);
    assert.equal(loadConfig(PRODUCTION).passwordHashCost, 17);
    assert.equal(loadConfig({ ...PRODUCTION, PASSWORD_HASH_COST: '17' }).passwordHashCost, 17);
    assert.equal(loadConfig({ NODE_ENV: 'test', PASSWORD_HASH_COST: '10' }).passwordHashCost, 10);
    assert.equal(loadConfig({ PASSWORD_HASH_COST: '12' }).passwordHashCost, 12);
    for (const low of ['10', '16'])
      refused(
        { ...PRODUCTION, PASSWORD_HASH_COST: low },
        /^PASSWORD_HASH_COST below 17 .* refused when NODE_ENV=production$/,
      );
    for (const bad of ['9', '18', '2.5', 'cheap'])
      refused({ PASSWORD_HASH_COST: bad }, /^PASSWORD_HASH_COST must be a whole number from 10 to 17/);
  });

  test('WEBHOOKS_ALLOW_PRIVATE: off unless set to on; any other value stops the start', () => {
    assert.equal(loadConfig({}).webhooksAllowPrivate, false);
    assert.equal(loadConfig(PRODUCTION).webhooksAllowPrivate, false);
    assert.equal(loadConfig({ WEBHOOKS_ALLOW_PRIVATE: 'on' }).webhooksAllowPrivate, true);
    assert.equal(loadConfig({ WEBHOOKS_ALLOW_PRIVATE: 'OFF' }).webhooksAllowPrivate, false);
    for (const bad of ['yes', 'true', '1'])
      refused({ WEBHOOKS_ALLOW_PRIVATE: bad }, /^WEBHOOKS_ALLOW_PRIVATE must be on or off/);
  });
});
