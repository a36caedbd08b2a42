import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UnsafeResponseError } from '../../../src/core/errors.js';
import { archivePath, parseArchivePath } from '../../../src/core/archive/layout.js';

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gexwh-archive-'));
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('archivePath', () => {
  it('builds <root>/<exchange>/<symbol>/<date>_<file>.csv.gz', () => {
    expect(archivePath(root, 'deribit', 'BTC', '2024-06-03', 'levels')).toBe(join(root, 'deribit', 'BTC', '2024-06-03_levels.csv.gz'));
    expect(archivePath('data/raw', 'tradfi', 'BRK.B', '2024-06-03', 'strikes_by_expiry')).toBe(
      join('data/raw', 'tradfi', 'BRK.B', '2024-06-03_strikes_by_expiry.csv.gz'),
    );
  });

  it.each([
    ['exchange', ['../../x', 'BTC', '2024-06-03', 'levels']],
    ['exchange', ['binance', 'BTC', '2024-06-03', 'levels']],
    ['exchange', ['Deribit', 'BTC', '2024-06-03', 'levels']],
    ['exchange', ['', 'BTC', '2024-06-03', 'levels']],
    ['symbol', ['deribit', '../../x', '2024-06-03', 'levels']],
    ['symbol', ['deribit', 'a/b', '2024-06-03', 'levels']],
    ['symbol', ['deribit', 'A/B', '2024-06-03', 'levels']],
    ['symbol', ['deribit', 'X;Y', '2024-06-03', 'levels']],
    ['symbol', ['deribit', '"Q"', '2024-06-03', 'levels']],
    ['symbol', ['deribit', '.', '2024-06-03', 'levels']],
    ['symbol', ['deribit', '..', '2024-06-03', 'levels']],
    ['symbol', ['deribit', 'btc', '2024-06-03', 'levels']],
    ['symbol', ['deribit', 'A\\B', '2024-06-03', 'levels']],
    ['symbol', ['deribit', 'A\0B', '2024-06-03', 'levels']],
    ['symbol', ['deribit', '', '2024-06-03', 'levels']],
    ['session date', ['deribit', 'BTC', '../../x', 'levels']],
    ['session date', ['deribit', 'BTC', '2024-06-03/..', 'levels']],
    ['session date', ['deribit', 'BTC', '2024-02-30', 'levels']],
    ['file kind', ['deribit', 'BTC', '2024-06-03', '../../x']],
    ['file kind', ['deribit', 'BTC', '2024-06-03', 'levels.csv.gz/../x']],
    ['file kind', ['deribit', 'BTC', '2024-06-03', 'x;y']],
  ] as const)('refuses a hostile %s: %j', (part, [exchange, symbol, date, file]) => {
    const call = (): string => archivePath(root, exchange, symbol, date, file);
    expect(call).toThrow(UnsafeResponseError);
    expect(call).toThrow(new RegExp(`refusing ${part}`));
  });

  it('never puts a whole hostile value into its message', () => {
    expect(() => archivePath(root, 'deribit', 'X'.repeat(500), '2024-06-03', 'levels')).toThrow(/X{40}…"/);
  });
});

describe('parseArchivePath', () => {
  it('parses archive names and rejects anything else', () => {
    expect(parseArchivePath('deribit/BTC/2024-06-03_strikes_total.csv.gz')).toEqual({
      exchange: 'deribit',
      symbol: 'BTC',
      sessionDate: '2024-06-03',
      file: 'strikes_total',
    });
    for (const bad of [
      'deribit/BTC/2024-06-03_other.csv.gz',
      'deribit/btc/2024-06-03_levels.csv.gz',
      'binance/BTC/2024-06-03_levels.csv.gz',
      'deribit/BTC/.2024-06-03_levels.csv.gz.0123456789ab.part',
      'deribit/BTC/x/2024-06-03_levels.csv.gz',
      'deribit/BTC/2024-13-03_levels.csv.gz',
    ]) {
      expect(parseArchivePath(bad)).toBeNull();
    }
  });
});
