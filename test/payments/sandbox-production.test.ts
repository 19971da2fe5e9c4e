import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { PRODUCTION_SECRET_KEY } from '../helpers/production-secret.ts';

const PRODUCTION = { NODE_ENV: 'production', SECRET_KEY: PRODUCTION_SECRET_KEY };

describe('the sandbox in production', () => {
  test('refused with one clear line unless SANDBOX_IN_PRODUCTION=true', () => {
    assert.throws(
      () => loadConfig(PRODUCTION),
      (err: unknown) =>
        err instanceof ConfigError && /SANDBOX_IN_PRODUCTION=true/.test(err.message) && !err.message.includes('\n'),
    );
    assert.throws(() => loadConfig({ ...PRODUCTION, SANDBOX_IN_PRODUCTION: 'yes' }), ConfigError);
    assert.equal(loadConfig({ ...PRODUCTION, SANDBOX_IN_PRODUCTION: 'true' }).paymentProvider, 'sandbox');
  });

  test('allowed outside production; lyra or stripe (per-tenant accounts, no sandbox) is accepted in production', () => {
    assert.equal(loadConfig({ NODE_ENV: 'development' }).paymentProvider, 'sandbox');
    assert.equal(loadConfig({ ...PRODUCTION, PAYMENT_PROVIDER: 'lyra' }).paymentProvider, 'lyra');
    assert.equal(loadConfig({ ...PRODUCTION, PAYMENT_PROVIDER: 'stripe' }).paymentProvider, 'stripe');
    assert.throws(() => loadConfig({ ...PRODUCTION, PAYMENT_PROVIDER: 'adyen' }), ConfigError);
  });

  test('the IPN retry delay is configurable within bounds', () => {
    assert.equal(loadConfig({}).sandboxIpnRetryMs, 1000);
    assert.equal(loadConfig({ SANDBOX_IPN_RETRY_MS: '50' }).sandboxIpnRetryMs, 50);
    assert.throws(() => loadConfig({ SANDBOX_IPN_RETRY_MS: '0' }), ConfigError);
  });
});
