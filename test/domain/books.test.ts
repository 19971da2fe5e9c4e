import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type BooksFacts, type BooksTransaction, compareBooks, providerNet } from '../../src/domain/index.js';

const facts = (f: Partial<BooksFacts> = {}): BooksFacts => ({
  status: 'CAPTURED',
  amountCaptured: 8000,
  amountRefunded: 0,
  unsettledRows: 0,
  ...f,
});
const tx = (t: Partial<BooksTransaction> & Pick<BooksTransaction, 'kind' | 'status'>): BooksTransaction => ({
  capturedAmount: 0,
  refundedAmount: 0,
  ...t,
});

describe('the books rule', () => {
  test("the provider's net: payments and holds taken, less given back; refund rows are not counted twice", () => {
    assert.equal(
      providerNet([
        tx({ kind: 'verification', status: 'accepted' }),
        tx({ kind: 'hold', status: 'captured', capturedAmount: 8000, refundedAmount: 3000 }),
        tx({ kind: 'refund', status: 'refunded', capturedAmount: 0 }),
        tx({ kind: 'payment', status: 'captured', capturedAmount: 500 }),
      ]),
      5500,
    );
  });

  test('equal nets and no open hold agree', () => {
    const v = compareBooks(facts(), [tx({ kind: 'payment', status: 'captured', capturedAmount: 8000 })]);
    assert.deepEqual(v, {
      verdict: 'agree',
      providerNet: 8000,
      payreqNet: 8000,
      openHolds: 0,
      unsettledRows: 0,
      problems: [],
    });
  });

  test('different nets disagree, whichever side has more', () => {
    const more = compareBooks(facts({ amountCaptured: 0, status: 'AUTHORISED_TO_VALIDATE' }), [
      tx({ kind: 'hold', status: 'captured', capturedAmount: 8000 }),
    ]);
    assert.deepEqual([more.verdict, more.problems], ['disagree', ['net_differs']]);
    const less = compareBooks(facts({ amountRefunded: 8000, status: 'REFUNDED' }), [
      tx({ kind: 'payment', status: 'captured', capturedAmount: 8000 }),
    ]);
    assert.deepEqual([less.verdict, less.providerNet, less.payreqNet], ['disagree', 8000, 0]);
  });

  test('an open hold is allowed in AUTHORISED_TO_VALIDATE and EXPIRED only', () => {
    const hold = [tx({ kind: 'hold', status: 'authorised' })];
    for (const status of ['AUTHORISED_TO_VALIDATE', 'EXPIRED'] as const) {
      assert.equal(compareBooks(facts({ status, amountCaptured: 0 }), hold).verdict, 'agree', status);
    }
    for (const status of ['CANCELLED', 'CAPTURED', 'AUTHORISED', null] as const) {
      const v = compareBooks(facts({ status, amountCaptured: 0 }), hold);
      assert.deepEqual([v.verdict, v.problems, v.openHolds], ['disagree', ['hold_open'], 1], String(status));
    }
  });

  test('an unsettled row, a transaction in transit or an unreadable view is in doubt, not judged', () => {
    const differ = [tx({ kind: 'payment', status: 'captured', capturedAmount: 1 })];
    assert.deepEqual(compareBooks(facts({ unsettledRows: 2 }), differ).verdict, 'in_doubt');
    assert.deepEqual(compareBooks(facts({ unsettledRows: 2 }), differ).problems, ['unsettled', 'net_differs']);
    const transit = compareBooks(facts(), [
      tx({ kind: 'payment', status: 'captured', capturedAmount: 8000 }),
      tx({ kind: 'refund', status: 'in_transit' }),
    ]);
    assert.deepEqual([transit.verdict, transit.problems], ['in_doubt', ['in_transit']]);
    const blind = compareBooks(facts(), undefined);
    assert.deepEqual([blind.verdict, blind.providerNet, blind.problems], ['in_doubt', null, ['unavailable']]);
  });
});
