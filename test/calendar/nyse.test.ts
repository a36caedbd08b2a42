// The NYSE calendar's rules against the holidays and early closes the exchange published for
// 2024-2027 (nyse.com, "Holidays & Trading Hours").
import { describe, expect, it } from 'vitest';
import { easterSunday, isNyseEarlyClose, isNyseTradingDay, nyseHoliday, nyseHolidays } from '../../src/calendar/nyse.js';

const PUBLISHED_HOLIDAYS: Record<number, string[]> = {
  2024: ['2024-01-01', '2024-01-15', '2024-02-19', '2024-03-29', '2024-05-27', '2024-06-19', '2024-07-04', '2024-09-02', '2024-11-28', '2024-12-25'],
  // 2025-01-09 (a national day of mourning) was announced, not ruled: not in the rules.
  2025: ['2025-01-01', '2025-01-20', '2025-02-17', '2025-04-18', '2025-05-26', '2025-06-19', '2025-07-04', '2025-09-01', '2025-11-27', '2025-12-25'],
  2026: ['2026-01-01', '2026-01-19', '2026-02-16', '2026-04-03', '2026-05-25', '2026-06-19', '2026-07-03', '2026-09-07', '2026-11-26', '2026-12-25'],
  2027: ['2027-01-01', '2027-01-18', '2027-02-15', '2027-03-26', '2027-05-31', '2027-06-18', '2027-07-05', '2027-09-06', '2027-11-25', '2027-12-24'],
};

const PUBLISHED_EARLY_CLOSES: Record<number, string[]> = {
  2024: ['2024-07-03', '2024-11-29', '2024-12-24'],
  2025: ['2025-07-03', '2025-11-28', '2025-12-24'],
  2026: ['2026-11-27', '2026-12-24'],
  2027: ['2027-11-26'],
};

function datesOf(year: number): string[] {
  const dates: string[] = [];
  for (let ms = Date.UTC(year, 0, 1); ms < Date.UTC(year + 1, 0, 1); ms += 86_400_000) dates.push(new Date(ms).toISOString().slice(0, 10));
  return dates;
}

describe('NYSE calendar', () => {
  for (const year of [2024, 2025, 2026, 2027]) {
    it(`${year}: exactly the published full-day holidays and early closes`, () => {
      expect([...nyseHolidays(year).keys()].sort()).toEqual(PUBLISHED_HOLIDAYS[year]);
      const dates = datesOf(year);
      expect(dates.filter((d) => nyseHoliday(d) !== undefined)).toEqual(PUBLISHED_HOLIDAYS[year]);
      expect(dates.filter((d) => isNyseTradingDay(d) && isNyseEarlyClose(d))).toEqual(PUBLISHED_EARLY_CLOSES[year]);
    });
  }

  it('computes Easter (Good Friday is two days before)', () => {
    expect(['2024', '2025', '2026', '2027', '2038'].map((y) => easterSunday(Number(y)))).toEqual([
      '2024-03-31',
      '2025-04-20',
      '2026-04-05',
      '2027-03-28',
      '2038-04-25',
    ]);
  });

  it('applies the weekend rules: Saturday to Friday, Sunday to Monday, no New Year on a Saturday', () => {
    expect(nyseHoliday('2026-07-03')).toBe('Independence Day'); // July 4 a Saturday
    expect(nyseHoliday('2027-07-05')).toBe('Independence Day'); // a Sunday
    expect(nyseHoliday('2027-06-18')).toBe('Juneteenth');
    // 2022-01-01 and 2028-01-01 are Saturdays: the Friday before trades.
    expect(isNyseTradingDay('2021-12-31')).toBe(true);
    expect(isNyseTradingDay('2027-12-31')).toBe(true);
    expect(nyseHoliday('2021-06-18')).toBeUndefined(); // Juneteenth only from 2022
  });

  it('Juneteenth is a holiday from its first year, 2022 (a Sunday: observed Monday June 20)', () => {
    expect(nyseHoliday('2022-06-20')).toBe('Juneteenth');
    expect(isNyseTradingDay('2022-06-20')).toBe(false);
    expect(isNyseTradingDay('2021-06-18')).toBe(true);
  });

  it('reads only YYYY-MM-DD: another ISO form of a date is refused, not answered as a trading day', () => {
    // Thanksgiving 2026 in ISO basic, week and ordinal forms: no holiday key matches them.
    for (const other of ['20261126', '2026-W48-4', '2026-330', '2026-11-26T12:00']) {
      expect(() => isNyseTradingDay(other)).toThrow(RangeError);
      expect(() => nyseHoliday(other)).toThrow(RangeError);
    }
  });

  it('weekends are not trading days; a holiday has a name', () => {
    expect(isNyseTradingDay('2026-11-28')).toBe(false);
    expect(isNyseTradingDay('2026-11-26')).toBe(false);
    expect(nyseHoliday('2026-11-26')).toBe('Thanksgiving Day');
    expect(isNyseTradingDay('2026-11-27')).toBe(true);
    expect(() => isNyseTradingDay('2026-2-3')).toThrow(RangeError);
  });
});

describe('one calendar for the client and the emulator', () => {
  it('the emulator has a TradFi session exactly on the dates the client counts as sessions; early closes end at 13:00', async () => {
    const { sessionDatesBetween } = await import('../../src/time/sessions.js');
    const { createMarketModel } = await import('../../emulator/market/index.js');
    const model = createMarketModel({ seed: 1, expirations: 1, strikes: 3, historyStart: '2024-01-01' });
    const clientSessions = sessionDatesBetween('tradfi', '2024-01-01', '2027-12-31');
    const emulatorSessions = [2024, 2025, 2026, 2027].flatMap(datesOf).filter((d) => model.sessionCaptures('tradfi', d).length > 0);
    expect(emulatorSessions).toEqual(clientSessions);
    expect(clientSessions).not.toContain('2026-11-26');
    const lastCapture = (d: string) => model.sessionCaptures('tradfi', d).at(-1)!.toISOString();
    expect(lastCapture('2026-11-27')).toBe('2026-11-27T18:00:00.000Z'); // 13:00 New York (EST)
    expect(lastCapture('2025-07-03')).toBe('2025-07-03T17:00:00.000Z'); // 13:00 New York (EDT)
    expect(lastCapture('2026-11-30')).toBe('2026-11-30T21:00:00.000Z'); // 16:00
  });
});
