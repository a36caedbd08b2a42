import { describe, expect, it } from 'vitest';
import { weekdayOf } from '../../../emulator/market/calendar.js';
import { EXPIRATION_GRACE_MS, expirationCode, listedExpirations } from '../../../emulator/market/expirations.js';

const at = (text: string): number => Date.parse(text);
const isos = (list: { iso: string }[]): string[] => list.map((info) => info.iso);

describe('expirationCode', () => {
  it('formats DDMMMYY', () => {
    expect(expirationCode('2026-03-27')).toBe('27MAR26');
    expect(expirationCode('2027-12-05')).toBe('05DEC27');
    expect(() => expirationCode('2026-02-30')).toThrow(RangeError);
  });
});

describe('crypto expirations', () => {
  it('lists dailies, Friday weeklies, last-Friday monthlies and quarterlies with an 08:00 UTC cutoff', () => {
    const list = listedExpirations('crypto', at('2026-03-10T06:00:00Z'), 12, 0);
    expect(isos(list)).toEqual([
      '2026-03-10',
      '2026-03-11',
      '2026-03-12', // dailies
      '2026-03-13',
      '2026-03-20',
      '2026-03-27',
      '2026-04-03',
      '2026-04-10', // weeklies (27 Mar monthly)
      '2026-04-24',
      '2026-05-29',
      '2026-06-26', // monthlies (June quarterly)
      '2026-09-25', // quarterly
    ]);
    expect(list[0]!.cutoffUtc.toISOString()).toBe('2026-03-10T08:00:00.000Z');
    expect(list[0]!.code).toBe('10MAR26');
  });

  it('drops an expiration from captures at its cutoff and from listings an hour later', () => {
    const cutoff = at('2026-03-10T08:00:00Z');
    expect(isos(listedExpirations('crypto', cutoff - 1, 3, 0))[0]).toBe('2026-03-10');
    expect(isos(listedExpirations('crypto', cutoff, 3, 0))[0]).toBe('2026-03-11');
    expect(isos(listedExpirations('crypto', cutoff + EXPIRATION_GRACE_MS - 1, 3, EXPIRATION_GRACE_MS))[0]).toBe('2026-03-10');
    expect(isos(listedExpirations('crypto', cutoff + EXPIRATION_GRACE_MS, 3, EXPIRATION_GRACE_MS))[0]).toBe('2026-03-11');
  });

  it('caps the count', () => {
    expect(listedExpirations('crypto', at('2026-03-10T09:00:00Z'), 3, 0)).toHaveLength(3);
  });
});

describe('TradFi expirations', () => {
  it('lists weekday dailies, weeklies and third-Friday monthlies, cutoff 16:00 New York', () => {
    const list = listedExpirations('tradfi', at('2026-03-13T15:00:00Z'), 12, 0); // Friday
    expect(list.every((info) => weekdayOf(info.iso) !== 0 && weekdayOf(info.iso) !== 6)).toBe(true);
    expect(isos(list).slice(0, 6)).toEqual(['2026-03-13', '2026-03-16', '2026-03-17', '2026-03-18', '2026-03-19', '2026-03-20']);
    expect(isos(list)).toContain('2026-04-17'); // third Friday of April
    expect(list[0]!.cutoffUtc.toISOString()).toBe('2026-03-13T20:00:00.000Z'); // EDT
    const winter = listedExpirations('tradfi', at('2026-01-14T15:00:00Z'), 1, 0);
    expect(winter[0]!.cutoffUtc.toISOString()).toBe('2026-01-14T21:00:00.000Z'); // EST
  });

  it('keeps the day’s expiration listed through the grace hour', () => {
    const cutoff = at('2026-03-13T20:00:00Z');
    expect(isos(listedExpirations('tradfi', cutoff + 30 * 60_000, 2, EXPIRATION_GRACE_MS))[0]).toBe('2026-03-13');
    expect(isos(listedExpirations('tradfi', cutoff + 30 * 60_000, 2, 0))[0]).toBe('2026-03-16');
  });

  it('lists no expiration on an NYSE holiday: dailies skip it, a Friday expiry moves to the trading day before', () => {
    // Tuesday before Thanksgiving (2026-11-26).
    const list = isos(listedExpirations('tradfi', at('2026-11-24T15:00:00Z'), 12, 0));
    expect(list.slice(0, 5)).toEqual(['2026-11-24', '2026-11-25', '2026-11-27', '2026-11-30', '2026-12-01']);
    // Good Friday 2026-04-03: its weekly is Thursday's.
    const easter = isos(listedExpirations('tradfi', at('2026-03-30T15:00:00Z'), 12, 0));
    expect(easter).not.toContain('2026-04-03');
    expect(easter).toContain('2026-04-02');
    // Juneteenth 2026 is the third Friday of June: the June quarterly is Thursday 2026-06-18.
    const june = isos(listedExpirations('tradfi', at('2026-03-13T15:00:00Z'), 40, 0));
    expect(june).toContain('2026-06-18');
    expect(june).not.toContain('2026-06-19');
  });

  it("cuts an early close day's expiration off at 13:00 New York: the 0DTE dte counts to it", () => {
    // Friday after Thanksgiving, 2026-11-27: the NYSE closes at 13:00 EST (18:00Z).
    const [today] = listedExpirations('tradfi', at('2026-11-27T15:00:00Z'), 1, 0);
    expect(today).toMatchObject({ iso: '2026-11-27' });
    expect(today!.cutoffUtc.toISOString()).toBe('2026-11-27T18:00:00.000Z');
    // At 18:00Z the day's chain is gone from captures (listed for the grace hour only).
    expect(isos(listedExpirations('tradfi', at('2026-11-27T18:00:00Z'), 1, 0))).toEqual(['2026-11-30']);
    expect(isos(listedExpirations('tradfi', at('2026-11-27T18:00:00Z'), 1, EXPIRATION_GRACE_MS))).toEqual(['2026-11-27']);
  });
});
