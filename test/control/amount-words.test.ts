import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { amountInWords } from '../../src/control/shell/spell-amount.ts';
import { CONTROL_MESSAGES } from '../../src/control/shell/words.ts';

const words = (cents: number, currency: string, language: 'en' | 'fr' | 'de') =>
  amountInWords(cents, currency, language, CONTROL_MESSAGES[language].money);

describe('amounts in words for confirmations', () => {
  test('German: "ein Euro", not the counting "eins"; compounds in one word; Rappen for CHF', () => {
    assert.equal(words(100, 'EUR', 'de'), 'ein Euro');
    assert.equal(words(101, 'EUR', 'de'), 'ein Euro und ein Cent');
    assert.equal(words(12_050, 'EUR', 'de'), 'einhundertzwanzig Euro und fünfzig Cent');
    assert.equal(words(50, 'CHF', 'de'), 'null Schweizer Franken und fünfzig Rappen');
    assert.equal(words(2_100, 'EUR', 'de'), 'einundzwanzig Euro');
  });

  test('English and French keep their words', () => {
    assert.equal(words(100, 'EUR', 'en'), 'one euro');
    assert.equal(words(12_050, 'EUR', 'fr'), 'cent vingt euros et cinquante centimes');
  });
});
