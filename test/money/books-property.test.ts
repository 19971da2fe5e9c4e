import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { HostedCardForm } from '../../src/providers/index.ts';
import { ENGINE } from '../helpers/test-app.ts';
import { booksProperty, MODEL_TIMEOUT_MS, modelParameters } from './books-model/model.ts';
import { sandboxWorld } from './books-model/sandbox-world.ts';
import type { ProviderWorld } from './books-model/world.ts';

// Random interleavings of guests paying (good, refused, failing cards, on forms opened at any
// time), notifications delivered again, captures, releases, cancels, deletes, back-office
// refunds (full and partial), bursts of them at once, daily job runs, answers lost, late or
// never given, and reconcile. After every step each request's books equal the sandbox's, no
// hold is open that should not be, no terminal status moves; after the last, reconcile leaves
// nothing open. The same model runs on Lyra (books-property-lyra.test.ts).
describe(`the books always match the provider's: the sandbox (${ENGINE})`, { timeout: MODEL_TIMEOUT_MS }, () => {
  let world: ProviderWorld<HostedCardForm>;
  before(async () => {
    world = await sandboxWorld();
  });
  after(() => world?.close());

  test('random interleavings: after every step, every request agrees with the sandbox', async () => {
    await fc.assert(booksProperty(world, { switch: false, remit: false }), modelParameters());
  });
});
