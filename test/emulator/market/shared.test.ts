import { describe, expect, it } from 'vitest';
import { createMarketModel } from '../../../emulator/market/index.js';

const OPTIONS = { seed: 11, expirations: 2, strikes: 6, symbols: ['BTC'], historyStart: '2026-02-02' };

describe('markets shared by their options', () => {
  it('emulators with equal options share one market and the files it built, whatever the keys order', () => {
    const first = createMarketModel(OPTIONS);
    const again = createMarketModel({ historyStart: '2026-02-02', symbols: ['BTC'], strikes: 6, expirations: 2, seed: 11, layout: undefined });
    expect(again).toBe(first);
    const file = first.dailyFile('deribit', 'BTC', '2026-02-03', 'levels', 0);
    expect(again.dailyFile('deribit', 'BTC', '2026-02-03', 'levels', 0).bytes).toBe(file.bytes);
  });

  it('any option that differs makes a market of its own, with its own files', () => {
    const first = createMarketModel(OPTIONS);
    const otherSeed = createMarketModel({ ...OPTIONS, seed: 12 });
    const otherLayout = createMarketModel({ ...OPTIONS, layout: 'lean' });
    expect(otherSeed).not.toBe(first);
    expect(otherLayout).not.toBe(first);
    expect(otherLayout).not.toBe(otherSeed);
    const sha = (model: typeof first) => model.dailyFile('deribit', 'BTC', '2026-02-03', 'levels', 0).sha256;
    expect(new Set([sha(first), sha(otherSeed), sha(otherLayout)]).size).toBe(3);
  });
});
