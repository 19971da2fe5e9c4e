import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isIsoDate } from '../../src/domain/index.ts';

/** What a calendar says: the date a Date makes of the digits reads back as the same text. */
function calendarSays(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === text;
}

const two = (n: number) => String(n).padStart(2, '0');
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('reservation dates', () => {
  // Years around the two-digit edge (00YY), four leap centuries, and the last years written.
  const years = [...range(0, 120), ...range(1890, 2410), ...range(9980, 9999)];

  test('every month 00 to 13 and day 00 to 32 of those years: as the calendar says', () => {
    for (const year of years) {
      const y = String(year).padStart(4, '0');
      for (let month = 0; month <= 13; month++) {
        for (let day = 0; day <= 32; day++) {
          const text = `${y}-${two(month)}-${two(day)}`;
          if (isIsoDate(text) !== calendarSays(text)) assert.fail(`${text}: ${isIsoDate(text)}`);
        }
      }
    }
  });

  test('leap days, and text that is not YYYY-MM-DD', () => {
    for (const ok of ['2024-02-29', '2000-02-29', '2026-12-31', '2026-04-30']) assert.equal(isIsoDate(ok), true, ok);
    for (const no of [
      '2026-02-29',
      '1900-02-29',
      '2026-04-31',
      '2026-1-01',
      '20260-01-01',
      ' 2026-01-01',
      '2026-01-01\n',
      '2026/01/01',
      '２０２６-01-01',
      '2026-01-01T00:00:00Z',
    ])
      assert.equal(isIsoDate(no), false, JSON.stringify(no));
    for (const notText of [20260101, null, undefined, {}, ['2026-01-01']]) assert.equal(isIsoDate(notText), false);
  });
});
