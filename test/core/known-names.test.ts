import { describe, expect, it } from 'vitest';
import { usageMessage } from '../helpers/errors.js';
import { checkSelectionNames, closestNames, editDistance, knownFromCoverage, suggestion, type KnownPairs } from '../../src/core/known-names.js';
import { parseExchanges } from '../../src/sync/selection.js';

const pair = (exchange: string, symbol: string) => ({ exchange, symbol });
const CRYPTO = ['bybit', 'combined', 'deribit', 'derive', 'okx'];
const PAIRS = [...CRYPTO.flatMap((e) => [pair(e, 'BTC'), pair(e, 'ETH')]), pair('okx', 'SOL'), pair('tradfi', 'SPY'), pair('tradfi', 'QQQ')];
const known: KnownPairs = { pairs: PAIRS, source: 'the coverage' };

describe('editDistance', () => {
  it.each([
    ['BTC', 'BTC', 0],
    ['BTX', 'BTC', 1],
    ['TBC', 'BTC', 1],
    ['BTCC', 'BTC', 1],
    ['NOPE', 'BTC', 4],
    ['', 'ABC', 3],
  ])('%s → %s = %i', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
    expect(editDistance(b, a)).toBe(d);
  });
});

describe('closestNames', () => {
  const symbols = ['BTC', 'ETH', 'SOL', 'SPY', 'QQQ', 'BCH'];
  it('finds typos, swaps and prefixes, closest first, case-insensitively', () => {
    expect(closestNames('btx', symbols)).toEqual(['BTC']);
    expect(closestNames('ETC', symbols)).toEqual(['BTC', 'ETH']); // both one edit away: name order
    expect(closestNames('TBC', symbols)).toEqual(['BTC']);
    expect(closestNames('BT', symbols)).toEqual(['BTC']);
    expect(closestNames('SPYY', symbols)).toEqual(['SPY']);
  });
  it('finds nothing for a name far from every known one', () => {
    expect(closestNames('NOPE', symbols)).toEqual([]);
    expect(suggestion('NOPE', symbols, 'symbols')).toBe('known symbols: BCH, BTC, ETH, QQQ, SOL, SPY');
  });
  it('lists at most a dozen known names', () => {
    const many = Array.from({ length: 20 }, (_, i) => `S${String(i).padStart(2, '0')}XYZ`);
    expect(suggestion('NOPE', many, 'symbols')).toMatch(/S11XYZ, … \(20 in all\)$/);
  });
  it('never suggests the name itself', () => {
    expect(closestNames('BTC', symbols)).not.toContain('BTC');
  });
});

describe('checkSelectionNames', () => {
  it('passes known names, symbols in any case', () => {
    expect(() => checkSelectionNames({ symbols: ['btc'], exchanges: ['deribit'] }, known)).not.toThrow();
    expect(() => checkSelectionNames({}, known)).not.toThrow();
    expect(() => checkSelectionNames({ exchanges: ['deribit', 'tradfi'], symbols: ['BTC', 'SPY'] }, known)).not.toThrow();
  });
  it('an unknown symbol names itself and the closest known ones', () => {
    expect(usageMessage(() => checkSelectionNames({ symbols: ['NOPE'] }, known))).toBe(
      'NOPE: no history in the coverage; known symbols: BTC, ETH, QQQ, SOL, SPY',
    );
    expect(usageMessage(() => checkSelectionNames({ symbols: ['ETC'] }, known))).toBe('ETC: no history in the coverage; did you mean BTC, ETH?');
  });
  it('a pair with no history names the venues that hold the symbol', () => {
    expect(usageMessage(() => checkSelectionNames({ symbols: ['SOL'], exchanges: ['deribit'] }, known))).toBe(
      'SOL on deribit: no history; SOL has history on okx',
    );
  });
  it('a venue with no rows in the coverage is named', () => {
    expect(
      usageMessage(() => checkSelectionNames({ exchanges: ['okx'] }, { pairs: [pair('deribit', 'BTC'), pair('bybit', 'BTC')], source: 'the warehouse' })),
    ).toBe('okx: no history in the warehouse; known venues: bybit, deribit');
  });
  it('every problem is named at once', () => {
    const message = usageMessage(() => checkSelectionNames({ symbols: ['NOPE', 'ETC', 'BTC'] }, known));
    expect(message).toMatch(/^NOPE: no history .*; ETC: no history .*did you mean BTC, ETH\?$/);
    expect(message).not.toContain('BTC: ');
  });
  it('a name whose coverage row is skipped (with its own warning) is not called unknown', () => {
    const withSkipped = {
      ...known,
      skipped: [
        { exchange: 'kraken', symbol: 'BTC' },
        { exchange: 'deribit', symbol: 'LONGNAME' },
      ],
    };
    expect(() => checkSelectionNames({ exchanges: ['kraken'], symbols: ['longname'] }, withSkipped)).not.toThrow();
    expect(() => checkSelectionNames({ exchanges: ['kraken'] }, known)).toThrow(/kraken: no history/);
  });

  it("history outside the key's plan is said as such", () => {
    const trial = knownFromCoverage(PAIRS, ['crypto']);
    expect(usageMessage(() => checkSelectionNames({ symbols: ['SPY'] }, trial))).toBe(
      "SPY: its history (on tradfi) is outside this key's plan (markets: crypto)",
    );
    expect(usageMessage(() => checkSelectionNames({ exchanges: ['tradfi'] }, trial))).toBe("tradfi: its history is outside this key's plan (markets: crypto)");
  });
});

describe('parseExchanges', () => {
  it('suggests the venue a typo meant', () => {
    expect(usageMessage(() => parseExchanges('derbit'))).toMatch(/unknown history venue "derbit"; allowed: .*; did you mean deribit\?$/);
  });
});
