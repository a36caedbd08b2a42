import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createMarketModel, LEVELS_FIELD_NAMES, type FileKind, type LevelsFields } from '../../../emulator/market/index.js';
import { cellValue, parseGzipCsv, smallMarket } from './helpers.js';

const STRIKE_COLUMNS = ['strike', 'strike_call_gex', 'strike_put_gex', 'strike_net_gex', 'strike_call_oi', 'strike_put_oi'];
const HEADERS: Record<FileKind, string[]> = {
  levels: ['schema_version', 'timestamp_utc', 'session_date', 'type', 'exchange', 'symbol', 'oi_date', 'expiration', 'dte', ...LEVELS_FIELD_NAMES],
  strikes_total: ['schema_version', 'timestamp_utc', 'session_date', 'type', 'exchange', 'symbol', 'oi_date', ...LEVELS_FIELD_NAMES, ...STRIKE_COLUMNS],
  strikes_by_expiry: [
    'schema_version',
    'timestamp_utc',
    'session_date',
    'exchange',
    'symbol',
    'expiration',
    'strike',
    'strike_call_gex',
    'strike_put_gex',
    'strike_net_gex',
    'strike_call_oi',
    'strike_put_oi',
  ],
};
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00Z$/;

function expectLevelsCells(row: Record<string, string>, levels: LevelsFields): void {
  for (const name of LEVELS_FIELD_NAMES) expect(cellValue(row[name]!), name).toEqual(levels[name]);
}

describe('daily files', () => {
  const model = smallMarket();
  const session = '2026-03-09';
  const captures = model.sessionCaptures('crypto', session);
  const venues = model.symbolInfo('SOL')!.historyVenues;

  it('write the levels layout: TOTAL then each expiration per capture, close on the last', () => {
    const file = model.dailyFile('combined', 'SOL', session, 'levels', 0);
    const { header, rows } = parseGzipCsv(file.bytes);
    expect(header).toEqual(HEADERS.levels);
    const expected = captures.map((slot) => model.capture('SOL', venues, slot));
    expect(file.rows).toBe(expected.reduce((sum, capture) => sum + 1 + capture.expirations.length, 0));
    expect(rows).toHaveLength(file.rows);
    let index = 0;
    expected.forEach((capture, c) => {
      const stamp = `${capture.timestampUtc.toISOString().slice(0, 19)}Z`;
      for (const expiration of ['TOTAL', ...capture.expirations.map((chain) => chain.iso)]) {
        const row = rows[index++]!;
        expect(row).toMatchObject({
          schema_version: '1',
          timestamp_utc: stamp,
          session_date: session,
          exchange: 'combined',
          symbol: 'SOL',
          oi_date: '2026-03-08',
          expiration,
        });
        expect(row.type).toBe(c === expected.length - 1 ? 'close' : 'intraday');
        const chain = capture.expirations.find((candidate) => candidate.iso === expiration);
        expect(cellValue(row.dte!)).toBe(chain === undefined ? null : chain.dte);
        expectLevelsCells(row, chain === undefined ? capture.total.levels : chain.levels);
      }
    });
  });

  it('write strikes_total with the TOTAL levels repeated on every strike row', () => {
    const file = model.dailyFile('combined', 'SOL', session, 'strikes_total', 0);
    const { header, rows } = parseGzipCsv(file.bytes);
    expect(header).toEqual(HEADERS.strikes_total);
    let index = 0;
    captures.forEach((slot, c) => {
      const capture = model.capture('SOL', venues, slot);
      for (const strike of capture.total.strikes) {
        const row = rows[index++]!;
        expect(row.timestamp_utc).toMatch(TIMESTAMP);
        expect(row.type).toBe(c === captures.length - 1 ? 'close' : 'intraday');
        expectLevelsCells(row, capture.total.levels);
        expect(
          [row.strike, row.strike_call_gex, row.strike_put_gex, row.strike_net_gex, row.strike_call_oi, row.strike_put_oi].map((cell) => cellValue(cell!)),
        ).toEqual([strike.strike, strike.call_gex, strike.put_gex, strike.net_gex, strike.call_oi, strike.put_oi]);
      }
    });
    expect(file.rows).toBe(index);
    expect(rows).toHaveLength(index);
  });

  it('write strikes_by_expiry rows that join to levels on timestamp_utc + expiration', () => {
    const byExpiry = parseGzipCsv(model.dailyFile('bybit', 'SOL', session, 'strikes_by_expiry', 0).bytes);
    const levels = parseGzipCsv(model.dailyFile('bybit', 'SOL', session, 'levels', 0).bytes);
    expect(byExpiry.header).toEqual(HEADERS.strikes_by_expiry);
    const levelKeys = new Set(levels.rows.map((row) => `${row.timestamp_utc}|${row.expiration}`));
    expect(byExpiry.rows.every((row) => levelKeys.has(`${row.timestamp_utc}|${row.expiration}`))).toBe(true);
    const slot = captures[40]!;
    const capture = model.capture('SOL', ['bybit'], slot);
    const stamp = `${slot.toISOString().slice(0, 19)}Z`;
    const ofSlot = byExpiry.rows.filter((row) => row.timestamp_utc === stamp);
    expect(ofSlot).toHaveLength(capture.expirations.reduce((sum, chain) => sum + chain.strikes.length, 0));
    const chain = capture.expirations[1]!;
    const chainRows = ofSlot.filter((row) => row.expiration === chain.iso);
    expect(chainRows.map((row) => cellValue(row.strike_net_gex!))).toEqual(chain.strikes.map((row) => row.net_gex));
    expect(chainRows.map((row) => cellValue(row.strike_put_oi!))).toEqual(chain.strikes.map((row) => row.put_oi));
  });

  it('cover the 27 captures of a TradFi session', () => {
    const file = model.dailyFile('tradfi', 'SPY', '2026-03-09', 'strikes_total', 0);
    const { rows } = parseGzipCsv(file.bytes);
    const stamps = [...new Set(rows.map((row) => row.timestamp_utc))];
    expect(stamps).toHaveLength(27);
    expect(stamps[0]).toBe('2026-03-09T13:30:00Z');
    expect(stamps[26]).toBe('2026-03-09T20:00:00Z');
    expect(new Set(rows.filter((row) => row.type === 'close').map((row) => row.timestamp_utc))).toEqual(new Set(['2026-03-09T20:00:00Z']));
    expect(rows[0]!.oi_date).toBe('2026-03-06');
    expect(() => model.dailyFile('tradfi', 'SPY', '2026-03-07', 'levels', 0)).toThrow(RangeError); // Saturday
  });

  it('refuse exchanges without history for the symbol', () => {
    expect(() => model.dailyFile('binance', 'BTC', session, 'levels', 0)).toThrow(RangeError);
    expect(() => model.dailyFile('deribit', 'SOL', session, 'levels', 0)).toThrow(RangeError);
    expect(() => model.dailyFile('combined', 'SPY', '2026-03-09', 'levels', 0)).toThrow(RangeError);
  });

  it('report a sha256 of the bytes and write no exponent form', () => {
    const file = model.dailyFile('combined', 'BTC', session, 'strikes_total', 0);
    expect(file.sha256).toBe(createHash('sha256').update(file.bytes).digest('hex'));
    expect(gunzipSync(file.bytes).toString()).not.toMatch(/\de[+-]?\d/i);
  });
});

describe('file bytes', () => {
  const kinds: FileKind[] = ['levels', 'strikes_total', 'strikes_by_expiry'];

  it('are the same for the same seed and differ for another seed', () => {
    for (const kind of kinds) {
      const a = smallMarket(11).dailyFile('deribit', 'ETH', '2026-02-02', kind, 0);
      const b = smallMarket(11).dailyFile('deribit', 'ETH', '2026-02-02', kind, 0);
      const c = smallMarket(12).dailyFile('deribit', 'ETH', '2026-02-02', kind, 0);
      expect(b.sha256).toBe(a.sha256);
      expect(b.bytes.equals(a.bytes)).toBe(true);
      expect(c.sha256).not.toBe(a.sha256);
    }
  });

  it('change with the revision while the CSV stays the same', () => {
    const model = smallMarket();
    for (const kind of kinds) {
      const shas = new Set<string>();
      const original = model.dailyFile('okx', 'BTC', '2026-02-02', kind, 0);
      for (const revision of [0, 1, 2, 255, 256, 300]) {
        const file = model.dailyFile('okx', 'BTC', '2026-02-02', kind, revision);
        shas.add(file.sha256);
        expect(file.rows).toBe(original.rows);
        expect(gunzipSync(file.bytes).equals(gunzipSync(original.bytes))).toBe(true);
      }
      expect(shas.size).toBe(6);
    }
  });

  it('carry a fixed gzip header: no mtime, no file name, Unix OS byte', () => {
    const bytes = smallMarket().dailyFile('derive', 'ETH', '2026-02-02', 'levels', 0).bytes;
    expect([...bytes.subarray(0, 4)]).toEqual([0x1f, 0x8b, 8, 0]); // deflate, no flags (no name)
    expect(bytes.readUInt32LE(4)).toBe(0); // mtime
    expect(bytes[9]).toBe(3);
  });

  it('build a realistic BTC strikes_by_expiry file with one row per capture × expiration × strike', () => {
    const model = createMarketModel({ seed: 3, expirations: 10, strikes: 150, historyStart: '2025-01-01', symbols: ['BTC'] });
    const file = model.dailyFile('combined', 'BTC', '2026-03-09', 'strikes_by_expiry', 0);
    expect(file.rows).toBe(96 * 10 * 150);
  });
});
