import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { dayAfter, isoInZone, midnightIn } from '../../src/domain/index.ts';

describe('instants on a hotel’s clock', () => {
  test('ISO 8601 with the zone’s offset, either side of a change of offset', () => {
    const cases: [string, string, string][] = [
      ['2026-11-25T07:41:05.999Z', 'Europe/Paris', '2026-11-25T08:41:05+01:00'],
      ['2026-03-29T00:59:59Z', 'Europe/Paris', '2026-03-29T01:59:59+01:00'],
      ['2026-03-29T01:00:00Z', 'Europe/Paris', '2026-03-29T03:00:00+02:00'],
      ['2026-10-25T00:59:59Z', 'Europe/Paris', '2026-10-25T02:59:59+02:00'],
      ['2026-10-25T01:00:00Z', 'Europe/Paris', '2026-10-25T02:00:00+01:00'],
      ['2026-07-01T00:00:00Z', 'America/New_York', '2026-06-30T20:00:00-04:00'],
      ['2026-07-01T00:00:00Z', 'Asia/Kolkata', '2026-07-01T05:30:00+05:30'],
      ['2026-07-01T00:00:00Z', 'Asia/Kathmandu', '2026-07-01T05:45:00+05:45'],
      ['2026-07-01T00:00:00Z', 'UTC', '2026-07-01T00:00:00+00:00'],
    ];
    for (const [at, zone, expected] of cases) assert.equal(isoInZone(new Date(at), zone), expected, `${at} ${zone}`);
  });

  test('a day and the next, from the hotel’s midnight', () => {
    assert.equal(dayAfter('2026-12-31'), '2027-01-01');
    assert.equal(dayAfter('2028-02-28'), '2028-02-29');
    assert.equal(midnightIn('2026-11-02', 'Europe/Paris').toISOString(), '2026-11-01T23:00:00.000Z');
    assert.equal(midnightIn(dayAfter('2026-03-28'), 'Europe/Paris').toISOString(), '2026-03-28T23:00:00.000Z');
  });
});
