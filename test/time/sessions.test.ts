import { describe, expect, it } from 'vitest';
import {
  compareReferenceDate,
  compareSessionDate,
  latestSessionOnOrBefore,
  marketOf,
  sessionDatesBetween,
  sessionDateOf,
  todaySession,
} from '../../src/time/sessions.js';

const at = (iso: string): number => Date.parse(iso);

describe('marketOf', () => {
  it.each([
    ['tradfi', 'tradfi'],
    ['TRADFI', 'tradfi'],
    ['bybit', 'crypto'],
    ['deribit', 'crypto'],
    ['combined', 'crypto'],
    ['derive', 'crypto'],
  ])('%s → %s', (exchange, market) => {
    expect(marketOf(exchange)).toBe(market);
  });
});

describe('sessionDateOf', () => {
  it('uses the UTC date for crypto', () => {
    expect(sessionDateOf('crypto', at('2024-06-01T00:00:00Z'))).toBe('2024-06-01');
    expect(sessionDateOf('crypto', at('2024-06-01T23:59:59.999Z'))).toBe('2024-06-01');
    expect(sessionDateOf('crypto', new Date('2024-05-31T23:59:59Z'))).toBe('2024-05-31');
  });

  // New York is UTC−4 in summer (EDT) and UTC−5 in winter (EST).
  it.each([
    ['2024-06-01T03:59:59Z', '2024-05-31'], // summer: 23:59:59 EDT
    ['2024-06-01T04:00:00Z', '2024-06-01'], // summer: midnight EDT
    ['2024-01-15T04:59:59Z', '2024-01-14'], // winter: 23:59:59 EST
    ['2024-01-15T05:00:00Z', '2024-01-15'], // winter: midnight EST
    // spring forward 2024-03-10 02:00 EST → 03:00 EDT (07:00Z)
    ['2024-03-10T04:59:59Z', '2024-03-09'],
    ['2024-03-10T05:00:00Z', '2024-03-10'],
    ['2024-03-10T06:59:59Z', '2024-03-10'],
    ['2024-03-10T07:00:00Z', '2024-03-10'],
    ['2024-03-11T03:59:59Z', '2024-03-10'], // already EDT: midnight is at 04:00Z
    ['2024-03-11T04:00:00Z', '2024-03-11'],
    // fall back 2024-11-03 02:00 EDT → 01:00 EST (06:00Z)
    ['2024-11-03T03:59:59Z', '2024-11-02'],
    ['2024-11-03T04:00:00Z', '2024-11-03'],
    ['2024-11-04T04:59:59Z', '2024-11-03'], // now EST: midnight is at 05:00Z
    ['2024-11-04T05:00:00Z', '2024-11-04'],
  ])('TradFi: %s → %s', (instant, date) => {
    expect(sessionDateOf('tradfi', at(instant))).toBe(date);
  });

  it('rejects an invalid instant', () => {
    expect(() => sessionDateOf('crypto', Number.NaN)).toThrow(RangeError);
    expect(() => sessionDateOf('tradfi', new Date('nope'))).toThrow(RangeError);
  });
});

describe('todaySession and latestSessionOnOrBefore', () => {
  it('crypto and TradFi disagree between UTC midnight and New York midnight', () => {
    const now = at('2024-06-04T02:00:00Z');
    expect(todaySession('crypto', now)).toBe('2024-06-04');
    expect(todaySession('tradfi', now)).toBe('2024-06-03');
  });

  it('maps TradFi weekends to the Friday, keeps weekdays, leaves crypto alone', () => {
    expect(latestSessionOnOrBefore('tradfi', '2024-06-01')).toBe('2024-05-31'); // Saturday
    expect(latestSessionOnOrBefore('tradfi', '2024-06-02')).toBe('2024-05-31'); // Sunday
    expect(latestSessionOnOrBefore('tradfi', '2024-06-03')).toBe('2024-06-03'); // Monday
    expect(latestSessionOnOrBefore('crypto', '2024-06-02')).toBe('2024-06-02');
  });
});

describe('compare reference dates', () => {
  it('subtracts N days in the market calendar', () => {
    const now = at('2024-06-04T02:00:00Z'); // Tue in UTC, still Mon 22:00 in New York
    expect(compareReferenceDate('crypto', now, 1)).toBe('2024-06-03');
    expect(compareReferenceDate('tradfi', now, 1)).toBe('2024-06-02'); // a Sunday
    expect(compareSessionDate('tradfi', now, 1)).toBe('2024-05-31'); // → Friday close
    expect(compareReferenceDate('crypto', now, 30)).toBe('2024-05-05');
    // 2024-05-28 - 7 days = Memorial Day 2024-05-27, a holiday: the Friday before.
    expect(compareSessionDate('tradfi', now, 7)).toBe('2024-05-24');
  });

  it('counts calendar days across a DST change', () => {
    const now = at('2024-03-11T03:30:00Z'); // 23:30 EDT on Sunday 2024-03-10
    expect(compareReferenceDate('tradfi', now, 7)).toBe('2024-03-03');
    expect(compareSessionDate('tradfi', now, 7)).toBe('2024-03-01');
  });

  it('rejects a negative or fractional day count', () => {
    expect(() => compareReferenceDate('crypto', 0, -1)).toThrow(RangeError);
    expect(() => compareReferenceDate('crypto', 0, 1.5)).toThrow(RangeError);
  });
});

describe('sessionDatesBetween', () => {
  it('lists every UTC date for crypto and weekdays for TradFi, both bounds inclusive', () => {
    expect(sessionDatesBetween('crypto', '2024-05-31', '2024-06-03')).toEqual(['2024-05-31', '2024-06-01', '2024-06-02', '2024-06-03']);
    expect(sessionDatesBetween('tradfi', '2024-05-31', '2024-06-03')).toEqual(['2024-05-31', '2024-06-03']);
    expect(sessionDatesBetween('tradfi', '2024-06-01', '2024-06-02')).toEqual([]);
    expect(sessionDatesBetween('crypto', '2024-06-03', '2024-06-01')).toEqual([]);
  });
});
