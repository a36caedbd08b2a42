import { describe, expect, it } from 'vitest';
import { addDays, compareDates, daysBetween, isApiDate, isIsoDate, isWeekend, maxDate, splitDateWindows, weekdayOf } from '../../src/time/dates.js';

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
