import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type BooksFacts, type BooksTransaction, compareBooks, providerNet } from '../../src/domain/index.ts';

const facts = (f: Partial<BooksFacts> = {}): BooksFacts => ({
  status: 'CAPTURED',
  amountCaptured: 8000,
  amountRefunded: 0,
  unsettledRows: 0,
  amount: 8000,
  transactionId: null,
  ...f,
});
const tx = (t: Partial<BooksTransaction> & Pick<BooksTransaction, 'kind' | 'status'>): BooksTransaction => ({
  id: 'other',
  amount: 8000,
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
    // Taken outside payreq: the nets differ, and the hold the request shows is gone.
    assert.deepEqual([more.verdict, more.problems], ['disagree', ['net_differs', 'hold_missing']]);
    const less = compareBooks(facts({ amountRefunded: 8000, status: 'REFUNDED' }), [
      tx({ kind: 'payment', status: 'captured', capturedAmount: 8000 }),
    ]);
    assert.deepEqual([less.verdict, less.providerNet, less.payreqNet], ['disagree', 8000, 0]);
  });

  test('an open hold is allowed in AUTHORISED_TO_VALIDATE (its own) and EXPIRED only', () => {
    const hold = [tx({ id: 'h1', kind: 'hold', status: 'authorised' })];
    for (const status of ['AUTHORISED_TO_VALIDATE', 'EXPIRED'] as const) {
      assert.equal(
        compareBooks(facts({ status, amountCaptured: 0, transactionId: 'h1' }), hold).verdict,
        'agree',
        status,
      );
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

  test('both ways: a request that shows a hold has exactly its own open at the provider, for its amount', () => {
    const held = facts({ status: 'AUTHORISED_TO_VALIDATE', amountCaptured: 0, transactionId: 'h1' });
    const problems = (transactions: BooksTransaction[]) => {
      const v = compareBooks(held, transactions);
      return [v.verdict, v.problems];
    };
    // The hold payreq shows was refused (an answer lost), lapsed, or is not there at all.
    assert.deepEqual(problems([tx({ id: 'h1', kind: 'hold', status: 'refused' })]), ['disagree', ['hold_missing']]);
    assert.deepEqual(problems([tx({ id: 'h1', kind: 'hold', status: 'cancelled' })]), ['disagree', ['hold_missing']]);
    assert.deepEqual(problems([]), ['disagree', ['hold_missing']]);
    // Another hold open instead of its own, or beside it (a second hold landing late).
    assert.deepEqual(problems([tx({ id: 'h2', kind: 'hold', status: 'authorised' })]), [
      'disagree',
      ['hold_missing', 'hold_open'],
    ]);
    assert.deepEqual(
      problems([
        tx({ id: 'h1', kind: 'hold', status: 'authorised' }),
        tx({ id: 'h2', kind: 'hold', status: 'authorised' }),
      ]),
      ['disagree', ['hold_open']],
    );
    // Its own, for another amount than the request's.
    assert.deepEqual(problems([tx({ id: 'h1', kind: 'hold', status: 'authorised', amount: 3000 })]), [
      'disagree',
      ['hold_differs'],
    ]);
  });

  test('both ways: a captured request kept what payreq counts on its own transaction', () => {
    const captured = facts({ status: 'CAPTURED', amountCaptured: 8000, amountRefunded: 2000, transactionId: 'p1' });
    const own = (capturedAmount: number, refundedAmount: number) =>
      tx({ id: 'p1', kind: 'payment', status: 'captured', capturedAmount, refundedAmount });
    assert.equal(compareBooks(captured, [own(8000, 2000)]).verdict, 'agree');
    // A refund the same day lowered the payment itself: the same money kept.
    assert.equal(compareBooks(captured, [own(6000, 0)]).verdict, 'agree');
    // The nets agree, but the money moved on another transaction than the request's own.
    const elsewhere = compareBooks(captured, [
      own(0, 0),
      tx({ id: 'p2', kind: 'payment', status: 'captured', capturedAmount: 6000 }),
    ]);
    assert.deepEqual([elsewhere.verdict, elsewhere.problems], ['disagree', ['capture_differs']]);
  });
});
