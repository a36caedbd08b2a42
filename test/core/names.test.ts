import { describe, expect, it } from 'vitest';
import { isSymbol, SYMBOL_PATTERN } from '../../src/core/names.js';
import { SymbolSchema } from '../../src/api/schemas.js';
import { parseSymbols, SYMBOL_PATTERN as SELECTION_PATTERN } from '../../src/sync/selection.js';
import { archivePath } from '../../src/core/archive/layout.js';

describe('the one symbol pattern', () => {
  const long25 = 'BTC-USD-PERPETUAL-2026Q4X';
  it.each([
    ['BTC', true],
    ['BRK.B', true],
    ['A_B-C', true],
    [long25, true],
    ['X'.repeat(32), true],
    ['X'.repeat(33), false],
    ['.', false],
    ['..', false],
    ['._-', false],
    ['btc', false],
    ['A/B', false],
    ['', false],
  ])('%s → %s', (symbol, ok) => {
    expect(isSymbol(symbol)).toBe(ok);
    // Every module takes the same decision.
    expect(SymbolSchema.safeParse(symbol).success).toBe(ok);
    expect(() => archivePath('/a', 'deribit', symbol, '2024-06-03', 'levels')).toSatisfy((f: () => unknown) => {
      try {
        f();
        return ok;
      } catch {
        return !ok;
      }
    });
  });

  it('is the same object everywhere', () => {
    expect(SELECTION_PATTERN).toBe(SYMBOL_PATTERN);
  });

  it('a 25-character symbol is a valid --symbol, upper-cased', () => {
    expect(parseSymbols(long25.toLowerCase())).toEqual([long25]);
    expect(() => parseSymbols('X'.repeat(33))).toThrow(/1 to 32 characters/);
  });
});
