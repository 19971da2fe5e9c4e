import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { ENGINE } from '../helpers/test-app.ts';
import { lyraWorld } from './books-model/lyra-world.ts';
import { booksProperty, MODEL_TIMEOUT_MS, modelParameters } from './books-model/model.ts';

// The books model of books-property.test.ts on Lyra, through the wire-level fake, with two
// steps of Lyra's own: the hotel switching account mid-run (TEST to PRODUCTION at go-live, then
// another shop; the old account keeps its transactions), and Lyra's nightly remittance (a refund
// before it lowers the payment, after it is a CREDIT). The provider's net is summed over every
// shop that holds the order's transactions.
describe(`the books always match the provider's: Lyra (${ENGINE})`, { timeout: MODEL_TIMEOUT_MS }, () => {
  let world: Awaited<ReturnType<typeof lyraWorld>>;
  before(async () => {
    world = await lyraWorld();
  });
  after(() => world?.close());

  test('random interleavings and account switches: after every step, every request agrees with Lyra', async () => {
    await fc.assert(booksProperty(world, { switch: true, remit: true }), modelParameters());
  });
});
