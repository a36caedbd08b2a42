import { describe, expect, test } from 'vitest';
import { createClock } from '../../../emulator/server/clock.js';
import { HttpError } from '../../../emulator/server/http.js';
import { parseDate, parseInstant } from '../../../emulator/server/params.js';
import { createQuotaBook, nextUtcMidnight } from '../../../emulator/server/quota.js';

const slugOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (error) {
    return error instanceof HttpError ? error.slug : 'not an HttpError';
  }
};

describe('parameter parsing', () => {
  test('instants: date, date-time with Z, without zone (UTC), with offset, fractions', () => {
    expect(parseInstant('2026-03-10', 'at').toISOString()).toBe('2026-03-10T00:00:00.000Z');
    expect(parseInstant('2026-03-10T10:05:00Z', 'at').toISOString()).toBe('2026-03-10T10:05:00.000Z');
    expect(parseInstant('2026-03-10T10:05', 'at').toISOString()).toBe('2026-03-10T10:05:00.000Z');
    expect(parseInstant('2026-03-10T12:05:00+02:00', 'at').toISOString()).toBe('2026-03-10T10:05:00.000Z');
    expect(parseInstant('2026-03-10T10:05:00.250Z', 'at').toISOString()).toBe('2026-03-10T10:05:00.250Z');
  });

  test('bad instants and dates are invalid_param', () => {
    for (const value of ['', 'now', '2026-13-01', '2026-02-29', '2026-03-10T25:00:00Z', '2019-12-31T23:59:59Z', '2101-01-01', '1773238920']) {
      expect(
        slugOf(() => parseInstant(value, 'at')),
        value,
      ).toBe('invalid_param');
    }
    expect(slugOf(() => parseDate('2026-03-10T00:00:00Z', 'date'))).toBe('invalid_param');
    expect(slugOf(() => parseDate(undefined, 'date'))).toBe('invalid_param');
    expect(parseDate('2100-12-31', 'date')).toBe('2100-12-31');
  });
});

describe('clock and quota buckets', () => {
  test('a frozen clock moves only by set and advance', () => {
    let wall = 1_000;
    const clock = createClock({ now: '2026-03-11T00:00:00Z' }, () => wall);
    wall += 60_000;
    expect(clock.now().toISOString()).toBe('2026-03-11T00:00:00.000Z');
    clock.advance(1_000);
    expect(clock.now().toISOString()).toBe('2026-03-11T00:00:01.000Z');
    clock.set('2026-01-01T00:00:00Z');
    expect(clock.now().toISOString()).toBe('2026-01-01T00:00:00.000Z');
  });

  test('a realtime clock ticks with the wall clock from its start', () => {
    let wall = 5_000;
    const clock = createClock({ now: '2026-03-11T00:00:00Z', realtime: true }, () => wall);
    wall += 2_000;
    expect(clock.now().toISOString()).toBe('2026-03-11T00:00:02.000Z');
  });

  test('buckets reset at the next UTC midnight; charges since start never reset', () => {
    const book = createQuotaBook();
    const account = { id: 'trial', tier: 'trial', markets: ['crypto'], apiAccess: true, requestLimit: 2, creditLimit: 1, revoked: false } as const;
    const day1 = new Date('2026-03-11T23:00:00Z');
    book.charge(account, 'requests', day1);
    book.charge(account, 'requests', day1);
    expect(book.canSpend(account, 'requests', day1)).toBe(false);
    expect(nextUtcMidnight(day1).toISOString()).toBe('2026-03-12T00:00:00.000Z');
    const day2 = new Date('2026-03-12T00:00:00Z');
    expect(book.status(account, 'requests', day2)).toMatchObject({ used: 0, remaining: 2 });
    expect(book.chargedEver('trial', 'requests')).toBe(2);
  });
});
