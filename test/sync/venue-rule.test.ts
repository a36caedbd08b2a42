// The venue a symbol takes when none is named: every symbol of the coverage is either bought exactly
// once or named as not bought, never dropped in silence.
import { fc, test } from '../helpers/property.js';
import { describe, expect, it } from 'vitest';
import { defaultVenuePairs, describeNotBought } from '../../src/sync/venue-rule.js';
import { selectCoverage } from '../../src/sync/download-plan.js';
import { isDefaultVenue } from '../../src/core/pairs.js';

describe('defaultVenuePairs', () => {
  it('takes the default venue, else the only venue, else names the symbol with its venues and the flags that buy it', () => {
    const result = defaultVenuePairs([
      { exchange: 'bybit', symbol: 'BTC' },
      { exchange: 'okx', symbol: '1000PEPE' },
      { exchange: 'deribit', symbol: 'ETH' },
      { exchange: 'combined', symbol: 'ETH' },
      { exchange: 'tradfi', symbol: 'SPY' },
      { exchange: 'okx', symbol: 'SOL' },
      { exchange: 'bybit', symbol: 'SOL' },
    ]);
    expect(result.pairs).toEqual([
      { exchange: 'bybit', symbol: 'BTC' },
      { exchange: 'okx', symbol: '1000PEPE' },
      { exchange: 'combined', symbol: 'ETH' },
      { exchange: 'tradfi', symbol: 'SPY' },
    ]);
    expect(result.notBought).toEqual([{ symbol: 'SOL', venues: ['bybit', 'okx'], buyWith: ['--exchange bybit --symbol SOL', '--exchange okx --symbol SOL'] }]);
    expect(describeNotBought(result.notBought[0]!)).toBe(
      'SOL: not bought: history on bybit, okx and on no default venue (combined, tradfi); buy it with --exchange bybit --symbol SOL (or another of its venues) or --exchange all-venues (each venue costs its own credits)',
    );
  });

  it('selectCoverage applies the rule only when no venue is named, after the symbol and market filters', () => {
    const coverage = [
      { exchange: 'bybit', symbol: 'BTC' },
      { exchange: 'okx', symbol: 'BTC' },
      { exchange: 'tradfi', symbol: 'SPY' },
    ];
    expect(selectCoverage(coverage, { defaultVenuesOnly: true, markets: ['tradfi'] })).toEqual({
      pairs: [{ exchange: 'tradfi', symbol: 'SPY' }],
      notBought: [],
    });
    expect(selectCoverage(coverage, { defaultVenuesOnly: true, symbols: ['btc'] }).notBought.map((n) => n.symbol)).toEqual(['BTC']);
    expect(selectCoverage(coverage, { exchanges: ['okx'], defaultVenuesOnly: true }).pairs).toEqual([{ exchange: 'okx', symbol: 'BTC' }]);
  });
});

const venue = fc.constantFrom('bybit', 'deribit', 'okx', 'derive', 'combined', 'tradfi');
const symbol = fc.constantFrom('BTC', 'ETH', 'SOL', '1000PEPE', 'SPY');

test.prop([fc.array(fc.record({ exchange: venue, symbol }), { maxLength: 30 })])(
  'every symbol is bought once or named; a default venue always wins',
  (rows) => {
    const { pairs, notBought } = defaultVenuePairs(rows);
    const symbols = new Set(rows.map((row) => row.symbol));
    const bought = pairs.map((pair) => pair.symbol);
    const named = notBought.map((item) => item.symbol);
    expect(new Set([...bought, ...named])).toEqual(symbols);
    expect(bought.filter((s) => named.includes(s))).toEqual([]);
    for (const s of symbols) {
      const venues = new Set(rows.filter((row) => row.symbol === s).map((row) => row.exchange));
      const chosen = pairs.filter((pair) => pair.symbol === s).map((pair) => pair.exchange);
      const defaults = [...venues].filter(isDefaultVenue);
      if (defaults.length > 0) expect(chosen.sort()).toEqual(defaults.sort());
      else if (venues.size === 1) expect(chosen).toEqual([...venues]);
      else expect(notBought.find((item) => item.symbol === s)?.venues).toEqual([...venues].sort());
    }
  },
);
