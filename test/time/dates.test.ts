import { fc, test as fcTest } from '../helpers/property.js';
import { describe, expect, it } from 'vitest';
import {
  addDays,
  compareDates,
  daysBetween,
  isApiDate,
  isIsoDate,
  isWeekend,
  maxDate,
  parseIsoInstant,
  splitDateWindows,
  weekdayOf,
} from '../../src/time/dates.js';

describe('isIsoDate', () => {
  it.each([
    ['2024-02-29', true],
    ['2023-02-29', false],
    ['2025-13-01', false],
    ['2025-04-31', false],
    ['2025-4-01', false],
    ['2025-04-01T00:00:00Z', false],
    [' 2025-04-01', false],
    ['', false],
    ['1999-12-31', true],
  ])('%s → %s', (value, expected) => {
    expect(isIsoDate(value)).toBe(expected);
  });
});

describe('isApiDate', () => {
  it.each([
    ['2020-01-01', true],
    ['2100-12-31', true],
    ['2019-12-31', false],
    ['2101-01-01', false],
    ['2024-02-30', false],
  ])('%s → %s', (value, expected) => {
    expect(isApiDate(value)).toBe(expected);
  });
});

describe('date arithmetic', () => {
  it('adds days across months, leap days and years', () => {
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addDays('2024-02-29', 1)).toBe('2024-03-01');
    expect(addDays('2024-12-31', 1)).toBe('2025-01-01');
    expect(addDays('2025-01-01', -1)).toBe('2024-12-31');
    // DST days of New York do not matter: dates are computed on UTC midnights.
    expect(addDays('2024-03-10', 1)).toBe('2024-03-11');
    expect(addDays('2024-11-03', -1)).toBe('2024-11-02');
  });

  it('rejects malformed dates', () => {
    expect(() => addDays('2024-02-30', 1)).toThrow(RangeError);
  });

  it('counts days and weekdays', () => {
    expect(daysBetween('2024-01-01', '2025-01-01')).toBe(366);
    expect(daysBetween('2024-03-11', '2024-03-10')).toBe(-1);
    expect(weekdayOf('2024-06-01')).toBe(6); // a Saturday
    expect(isWeekend('2024-06-02')).toBe(true);
    expect(isWeekend('2024-06-03')).toBe(false);
  });

  it('compares and picks the later date', () => {
    expect(compareDates('2024-01-02', '2024-01-10')).toBe(-1);
    expect(compareDates('2024-01-10', '2024-01-10')).toBe(0);
    expect(maxDate(null, '2024-01-01')).toBe('2024-01-01');
    expect(maxDate('2024-01-03', '2024-01-01')).toBe('2024-01-03');
    expect(maxDate(null, null)).toBeNull();
  });
});

describe('splitDateWindows', () => {
  it('splits an end-exclusive range into windows of at most N days', () => {
    expect(splitDateWindows('2024-01-01', '2024-03-05', 31)).toEqual([
      { start: '2024-01-01', end: '2024-02-01' },
      { start: '2024-02-01', end: '2024-03-03' },
      { start: '2024-03-03', end: '2024-03-05' },
    ]);
    expect(splitDateWindows('2024-01-01', '2024-01-02', 31)).toEqual([{ start: '2024-01-01', end: '2024-01-02' }]);
    expect(splitDateWindows('2024-01-02', '2024-01-02', 31)).toEqual([]);
    expect(() => splitDateWindows('2024-01-01', '2024-02-01', 0)).toThrow(RangeError);
  });
});

describe('parseIsoInstant', () => {
  it('reads an instant with its zone, or a bare date as midnight UTC', () => {
    expect(parseIsoInstant('2026-11-30T14:00:00Z')?.toISOString()).toBe('2026-11-30T14:00:00.000Z');
    expect(parseIsoInstant('2026-03-11T01:05+01:00')?.toISOString()).toBe('2026-03-11T00:05:00.000Z');
    expect(parseIsoInstant('2026-03-10T20:05:00.250-0400')?.toISOString()).toBe('2026-03-11T00:05:00.250Z');
    expect(parseIsoInstant('2026-03-11 00:05Z')?.toISOString()).toBe('2026-03-11T00:05:00.000Z');
    expect(parseIsoInstant('2028-02-29')?.toISOString()).toBe('2028-02-29T00:00:00.000Z');
  });

  it('reads a fraction of a second as a decimal fraction, whatever its digits: .5 is 500 ms, not 5', () => {
    expect(parseIsoInstant('2026-03-10T12:00:00.5Z')?.toISOString()).toBe('2026-03-10T12:00:00.500Z');
    expect(parseIsoInstant('2026-03-10T12:00:00.05Z')?.toISOString()).toBe('2026-03-10T12:00:00.050Z');
    expect(parseIsoInstant('2026-03-10T12:00:00.123456Z')?.toISOString()).toBe('2026-03-10T12:00:00.123Z');
  });

  it('refuses what new Date() would roll into another day, and a time without a zone', () => {
    for (const bad of [
      '2026-11-31T14:00:00Z',
      '2026-02-30',
      '2026-02-29T00:00:00Z',
      '2026-13-01',
      '2026-11-20T24:00:00Z',
      '2026-11-20T23:60:00Z',
      '2026-11-20T23:59:60Z',
      '2026-11-20T12:00:00+24:00',
      '2026-11-20T12:00:00',
      'yesterday',
      '',
    ]) {
      expect(parseIsoInstant(bad), bad).toBeUndefined();
    }
  });

  fcTest.prop([fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-12-31T23:59:59Z'), noInvalidDate: true })])(
    'every real instant round-trips through its ISO text',
    (date) => {
      expect(parseIsoInstant(date.toISOString())?.getTime()).toBe(date.getTime());
    },
  );

  fcTest.prop([fc.integer({ min: 2020, max: 2100 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 29, max: 31 })])(
    'a day past the end of its month is refused, never rolled over',
    (year, month, day) => {
      const text = `${year}-${String(month).padStart(2, '0')}-${day}T12:00:00Z`;
      const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
      expect(parseIsoInstant(text) === undefined).toBe(day > daysInMonth);
    },
  );
});
