// What the user asks a chart for: every bad value is a UsageError that says what is allowed.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { formatOf, parseAt, parseExpiration, parseKind, parseLook, parseRange, parseStaleness } from '../../src/charts/request.js';

describe('chart request', () => {
  it('kinds, formats and looks', () => {
    expect(parseKind('Profile')).toBe('profile');
    expect(() => parseKind('pie')).toThrow(new UsageError('unknown chart kind "pie"; allowed: profile, oi, levels, walls, netgex, term, intraday'));
    expect(formatOf('a/b.PNG')).toBe('png');
    expect(formatOf('x.svg')).toBe('svg');
    expect(() => formatOf('x.jpg')).toThrow(/--out x.jpg: the extension says the format; allowed: .svg, .png/);
    expect(() => formatOf('noext')).toThrow(UsageError);
    expect(parseLook({})).toEqual({ width: 1000, height: 560, theme: 'light' });
    expect(parseLook({ width: '1200', height: '700', theme: 'dark' })).toEqual({ width: 1200, height: 700, theme: 'dark' });
    expect(() => parseLook({ width: '12.5' })).toThrow(/--width: "12.5" is not a size in pixels from 200 to 8000/);
    expect(() => parseLook({ theme: 'blue' })).toThrow(/--theme: unknown theme "blue"; allowed: light, dark/);
  });

  it('moments, ranges, expirations and staleness', () => {
    expect(parseAt('2026-03-11T00:05:00Z')?.toISOString()).toBe('2026-03-11T00:05:00.000Z');
    expect(parseAt('2026-03-11T01:05+01:00')?.toISOString()).toBe('2026-03-11T00:05:00.000Z');
    expect(parseAt('2026-03-11')?.toISOString()).toBe('2026-03-11T00:00:00.000Z');
    expect(() => parseAt('2026-03-11T00:05:00')).toThrow(/--at: "2026-03-11T00:05:00" is not an ISO 8601 instant with a time zone/);
    expect(() => parseAt('yesterday')).toThrow(UsageError);
    // new Date() rolls these into December 1st and March 2nd: an impossible date is refused instead.
    expect(() => parseAt('2026-11-31T14:00:00Z')).toThrow(/--at: "2026-11-31T14:00:00Z" is not an ISO 8601 instant with a time zone and a real date and time/);
    expect(() => parseAt('2026-02-30')).toThrow(UsageError);
    expect(() => parseAt('2026-11-20T24:00:00Z')).toThrow(UsageError);
    expect(parseRange('5%')).toBe(5);
    expect(parseRange(undefined)).toBe(10);
    expect(() => parseRange('0%')).toThrow(/--range: "0%" is not a percent of spot above 0 and at most 100/);
    expect(parseExpiration('total')).toBe('TOTAL');
    expect(parseExpiration('2026-03-27')).toBe('2026-03-27');
    expect(() => parseExpiration('2026-02-30')).toThrow(/--expiration: "2026-02-30" is neither TOTAL nor a date YYYY-MM-DD/);
    expect(parseStaleness('30m')).toBe(1800);
    expect(parseStaleness('1d')).toBe(86400);
    expect(() => parseStaleness('soon')).toThrow(/--max-staleness: "soon" is not a duration/);
  });
});
