import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DECLINE_REASON_CODES, isSoftDecline } from '../../src/domain/index.ts';
import { declineReasonOf } from '../../src/providers/index.ts';

/** Lyra's page on anticipated authorisations: the bank codes it never tries again. */
const LYRA_NEVER_RETRIED = [
  '03',
  '04',
  '05',
  '07',
  '12',
  '13',
  '14',
  '15',
  '31',
  '33',
  '34',
  '41',
  '43',
  '54',
  '56',
  '57',
  '59',
  '63',
  '76',
  '80',
  '81',
  '82',
];

describe('declines with a reason: one closed list, soft or hard', () => {
  test('the list holds at least the reasons a hotel must tell apart', () => {
    for (const reason of [
      'insufficient_funds',
      'do_not_honour',
      'expired_card',
      'lost_or_stolen',
      'authentication_required',
      'try_again_later',
      'invalid_card',
      'provider_error',
    ])
      assert.ok(DECLINE_REASON_CODES.includes(reason as never), reason);
  });

  test('Lyra: the bank code after ACQ_001 decides', () => {
    assert.equal(declineReasonOf('lyra', 'ACQ_001/51'), 'insufficient_funds');
    assert.equal(declineReasonOf('lyra', 'ACQ_001/05'), 'do_not_honour');
    assert.equal(declineReasonOf('lyra', 'ACQ_001/54'), 'expired_card');
    assert.equal(declineReasonOf('lyra', 'ACQ_001/43'), 'lost_or_stolen');
    assert.equal(declineReasonOf('lyra', 'ACQ_001/41'), 'lost_or_stolen');
    assert.equal(declineReasonOf('lyra', 'ACQ_001/1A'), 'authentication_required');
    assert.equal(declineReasonOf('lyra', 'ACQ_001/91'), 'try_again_later');
    assert.equal(declineReasonOf('lyra', 'ACQ_001/14'), 'invalid_card');
    assert.equal(declineReasonOf('lyra', 'ACQ_999'), 'provider_error');
    assert.equal(declineReasonOf('lyra', 'PSP_030'), 'invalid_card');
  });

  test('Lyra: a code it never retries is never soft here, and an unknown one is not retried', () => {
    const soft = LYRA_NEVER_RETRIED.filter((code) => isSoftDecline(declineReasonOf('lyra', `ACQ_001/${code}`)));
    assert.deepEqual(soft, []);
    assert.equal(declineReasonOf('lyra', 'ACQ_001/Z9'), 'other');
    assert.equal(declineReasonOf('lyra', 'ACQ_001'), 'other');
    assert.equal(isSoftDecline('other'), false);
  });

  test("Stripe: its decline_code (or the error's code) decides; what Stripe says not to retry is never soft", () => {
    assert.equal(declineReasonOf('stripe', 'insufficient_funds'), 'insufficient_funds');
    assert.equal(declineReasonOf('stripe', 'generic_decline'), 'do_not_honour');
    assert.equal(declineReasonOf('stripe', 'do_not_honor'), 'do_not_honour');
    assert.equal(declineReasonOf('stripe', 'stolen_card'), 'lost_or_stolen');
    assert.equal(declineReasonOf('stripe', 'lost_card'), 'lost_or_stolen');
    assert.equal(declineReasonOf('stripe', 'expired_card'), 'expired_card');
    assert.equal(declineReasonOf('stripe', 'authentication_required'), 'authentication_required');
    assert.equal(declineReasonOf('stripe', 'try_again_later'), 'try_again_later');
    assert.equal(declineReasonOf('stripe', 'processing_error'), 'provider_error');
    assert.equal(declineReasonOf('stripe', 'resource_missing'), 'invalid_card');
    assert.equal(declineReasonOf('stripe', 'card_declined'), 'other');
    assert.equal(declineReasonOf('stripe', 'toString'), 'other');
    // docs.stripe.com/declines/codes: "don't try again" in Stripe's next steps.
    for (const code of [
      'do_not_try_again',
      'fraudulent',
      'pickup_card',
      'lost_card',
      'stolen_card',
      'security_violation',
    ]) {
      assert.equal(isSoftDecline(declineReasonOf('stripe', code)), false, code);
    }
  });

  test('soft: funds, a silent issuer, a technical failure; hard: everything the guest must fix', () => {
    const soft = DECLINE_REASON_CODES.filter(isSoftDecline).sort();
    assert.deepEqual(soft, ['insufficient_funds', 'provider_error', 'try_again_later']);
  });

  test('the sandbox names the reason itself; anything else, or nothing, is other', () => {
    assert.equal(declineReasonOf('sandbox', 'insufficient_funds'), 'insufficient_funds');
    assert.equal(declineReasonOf('sandbox', 'lost_or_stolen'), 'lost_or_stolen');
    assert.equal(declineReasonOf('sandbox', 'toString'), 'other');
    assert.equal(declineReasonOf('sandbox', null), 'other');
  });
});
