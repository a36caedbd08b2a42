import { describe, expect, it } from 'vitest';
import { isSessionComplete, latestCaptureAtOrBefore, previousSessionDate, sessionCaptureTimes, sessionDateOf } from '../../../emulator/market/calendar.js';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

describe('crypto sessions', () => {
  it('has 96 captures from 00:00 to 23:45 UTC', () => {
    const times = sessionCaptureTimes('crypto', '2026-03-08');
    expect(times).toHaveLength(96);
    expect(iso(times[0]!)).toBe('2026-03-08T00:00:00.000Z');
    expect(iso(times[95]!)).toBe('2026-03-08T23:45:00.000Z');
  });

  it('uses the UTC date and the previous UTC date as oi session', () => {
    expect(sessionDateOf('crypto', new Date('2026-03-08T23:59:00Z'))).toBe('2026-03-08');
    expect(previousSessionDate('crypto', '2026-03-01')).toBe('2026-02-28');
  });

  it('floors to the quarter hour and stops at the history start', () => {
    expect(iso(latestCaptureAtOrBefore('crypto', Date.parse('2026-03-08T10:14:59Z'), '2026-01-01'))).toBe('2026-03-08T10:00:00.000Z');
    expect(iso(latestCaptureAtOrBefore('crypto', Date.parse('2026-03-08T10:15:00Z'), '2026-01-01'))).toBe('2026-03-08T10:15:00.000Z');
    expect(latestCaptureAtOrBefore('crypto', Date.parse('2025-12-31T23:59:00Z'), '2026-01-01')).toBeNull();
  });
});

describe('TradFi sessions', () => {
  it('has 27 captures 09:30..16:00 New York on a weekday, none on weekends', () => {
    const times = sessionCaptureTimes('tradfi', '2026-01-14'); // a Wednesday, EST
    expect(times).toHaveLength(27);
    expect(iso(times[0]!)).toBe('2026-01-14T14:30:00.000Z');
    expect(iso(times[26]!)).toBe('2026-01-14T21:00:00.000Z');
    expect(sessionCaptureTimes('tradfi', '2026-01-17')).toEqual([]); // Saturday
    expect(sessionCaptureTimes('tradfi', '2026-01-18')).toEqual([]); // Sunday
  });

  it('follows daylight saving time in UTC (spring and autumn weeks)', () => {
    // DST starts Sunday 2026-03-08 and ends Sunday 2026-11-01 in New York.
    expect(iso(sessionCaptureTimes('tradfi', '2026-03-06')[0]!)).toBe('2026-03-06T14:30:00.000Z');
    expect(iso(sessionCaptureTimes('tradfi', '2026-03-09')[0]!)).toBe('2026-03-09T13:30:00.000Z');
    expect(iso(sessionCaptureTimes('tradfi', '2026-03-09')[26]!)).toBe('2026-03-09T20:00:00.000Z');
    expect(iso(sessionCaptureTimes('tradfi', '2026-10-30')[0]!)).toBe('2026-10-30T13:30:00.000Z');
    expect(iso(sessionCaptureTimes('tradfi', '2026-11-02')[0]!)).toBe('2026-11-02T14:30:00.000Z');
  });

  it('dates sessions in New York and skips weekends for the oi session', () => {
    expect(sessionDateOf('tradfi', new Date('2026-03-10T03:00:00Z'))).toBe('2026-03-09');
    expect(previousSessionDate('tradfi', '2026-03-09')).toBe('2026-03-06'); // Monday → Friday
    expect(previousSessionDate('tradfi', '2026-03-10')).toBe('2026-03-09');
  });

  it('finds the latest capture across nights and weekends', () => {
    const start = '2026-01-01';
    // Saturday noon → Friday's close (EST: 21:00Z).
    expect(iso(latestCaptureAtOrBefore('tradfi', Date.parse('2026-01-17T12:00:00Z'), start))).toBe('2026-01-16T21:00:00.000Z');
    // Tuesday before the open, after Monday's holiday (MLK Day 2026-01-19) → Friday's close.
    expect(iso(latestCaptureAtOrBefore('tradfi', Date.parse('2026-01-20T14:00:00Z'), start))).toBe('2026-01-16T21:00:00.000Z');
    expect(iso(latestCaptureAtOrBefore('tradfi', Date.parse('2026-01-19T18:00:00Z'), start))).toBe('2026-01-16T21:00:00.000Z');
    // During the session: floored slot; after the close: the close.
    expect(iso(latestCaptureAtOrBefore('tradfi', Date.parse('2026-01-20T15:07:00Z'), start))).toBe('2026-01-20T15:00:00.000Z');
    expect(iso(latestCaptureAtOrBefore('tradfi', Date.parse('2026-01-20T23:00:00Z'), start))).toBe('2026-01-20T21:00:00.000Z');
    expect(latestCaptureAtOrBefore('tradfi', Date.parse('2026-01-02T14:00:00Z'), '2026-01-02')).toBeNull();
  });

  it('calls a session complete once its last slot is reached', () => {
    expect(isSessionComplete('tradfi', '2026-01-16', new Date('2026-01-16T20:59:59Z').getTime())).toBe(false);
    expect(isSessionComplete('tradfi', '2026-01-16', new Date('2026-01-16T21:00:00Z').getTime())).toBe(true);
    expect(isSessionComplete('tradfi', '2026-01-17', new Date('2026-02-01T00:00:00Z').getTime())).toBe(false);
    expect(isSessionComplete('crypto', '2026-01-16', new Date('2026-01-16T23:45:00Z').getTime())).toBe(true);
  });
});
