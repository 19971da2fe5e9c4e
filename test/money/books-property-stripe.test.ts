import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { ENGINE } from '../helpers/test-app.ts';
import { booksProperty, MODEL_TIMEOUT_MS, modelParameters } from './books-model/model.ts';
import { stripeWorld } from './books-model/stripe-world.ts';

// The books model of books-property.test.ts on Stripe, through the stateful fake: guests on
// Checkout (a declined card leaves the session open), the webhook and the guest's return racing
// to apply a payment, faults that stay with an operation's key through the SDK's retry, and the
// hotel moving to another Stripe account mid-run (the old one keeps its PaymentIntents). The
// provider's net is summed over every account the hotel used.
describe(`the books always match the provider's: Stripe (${ENGINE})`, { timeout: MODEL_TIMEOUT_MS }, () => {
  let world: Awaited<ReturnType<typeof stripeWorld>>;
  before(async () => {
    world = await stripeWorld();
  });
  after(() => world?.close());

  test('random interleavings and account switches: after every step, every request agrees with Stripe', async () => {
    await fc.assert(booksProperty(world, { switch: true, remit: false }), modelParameters());
  });
});
