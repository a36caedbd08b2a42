import { describe, expect, it } from 'vitest';
import { createMarketModel, type FileKind, type MarketOptions } from '../../../emulator/market/index.js';

// The emulator promises that a seed gives the same files, byte for byte, on every run and build: a
// synced warehouse and its manifest sha256 stay valid. These sha256 values were recorded from the
// build before the file writer was optimised; a change to any byte of a file (number text, row
// order, gzip settings) fails here instead of passing silently.
interface Pin {
  exchange: string;
  symbol: string;
  date: string;
  kind: FileKind;
  revision: number;
  rows: number;
  sha256: string;
}

const MARKETS: { options: MarketOptions; pins: Pin[] }[] = [
  {
    // The 60-day sync's chains (12 × 120): GEX values above int32, a 3 MB strikes_by_expiry file.
    options: { seed: 42, expirations: 12, strikes: 120, historyStart: '2026-04-18' },
    pins: [
      {
        exchange: 'bybit',
        symbol: 'BTC',
        date: '2026-06-01',
        kind: 'levels',
        revision: 0,
        rows: 1248,
        sha256: '8f60c275a6651be87ab1c451732328b0afb4a2b5c4f496aa3ef34b90118b19d9',
      },
      {
        exchange: 'bybit',
        symbol: 'BTC',
        date: '2026-06-01',
        kind: 'strikes_total',
        revision: 0,
        rows: 17280,
        sha256: '516a697461fa10951b4474ba33f9a28bcc63a202fe1bf73b8a67dacdfee85944',
      },
      {
        exchange: 'bybit',
        symbol: 'BTC',
        date: '2026-06-01',
        kind: 'strikes_by_expiry',
        revision: 0,
        rows: 138240,
        sha256: 'ec967a2d5fcb41a63febc326ede1dd22109288146463be566d87a3919f46dc05',
      },
    ],
  },
  {
    options: { seed: 1234, expirations: 3, strikes: 12, historyStart: '2025-06-01' },
    pins: [
      {
        exchange: 'deribit',
        symbol: 'ETH',
        date: '2025-11-28',
        kind: 'levels',
        revision: 0,
        rows: 384,
        sha256: '06c0d9bc212d4c4004f988cfa177557dc8c26a804cdf390252f4ba8c494facdf',
      },
      {
        exchange: 'deribit',
        symbol: 'ETH',
        date: '2025-11-28',
        kind: 'strikes_total',
        revision: 0,
        rows: 1152,
        sha256: '634e3c91ae9e39ef65901771c3df3dd6bff4e6eeea40358cb53f6e1aefae7ee3',
      },
      {
        exchange: 'deribit',
        symbol: 'ETH',
        date: '2025-11-28',
        kind: 'strikes_by_expiry',
        revision: 0,
        rows: 3456,
        sha256: '5c58634222d7950b2c0d45678f5f94ba5925c4c9e1698a4a28dfeedd3a764bcc',
      },
      // An NYSE early close, at the second compression level.
      {
        exchange: 'tradfi',
        symbol: 'SPY',
        date: '2025-11-28',
        kind: 'strikes_total',
        revision: 256,
        rows: 180,
        sha256: 'b44c252c724323c35f34090e3d8f6ddcfa3ef7c1635f922b19cf9d957cf3b53c',
      },
      // Open interest from the Friday before.
      {
        exchange: 'tradfi',
        symbol: 'QQQ',
        date: '2025-12-01',
        kind: 'strikes_by_expiry',
        revision: 513,
        rows: 972,
        sha256: 'fd29838219e1ff2ca6b70f9527e6b8e9c0d16293c73c4482ceae504a07d5c98f',
      },
      {
        exchange: 'combined',
        symbol: 'BTC',
        date: '2025-12-26',
        kind: 'levels',
        revision: 1,
        rows: 384,
        sha256: 'b52dd55f1e56f7b9a5bd15c18c616f7d1afdcaf94e0081dbf56ac4f75f6a524a',
      },
    ],
  },
  {
    options: { seed: 5, expirations: 3, strikes: 15, historyStart: '2026-03-01', symbols: ['BTC', 'SPY'], aliases: { XBT: 'BTC', 'SPX.W': 'SPY' } },
    pins: [
      {
        exchange: 'bybit',
        symbol: 'XBT',
        date: '2026-03-10',
        kind: 'strikes_by_expiry',
        revision: 2,
        rows: 4320,
        sha256: '915dacf727b958d6c1e96be860dfeade1d0062a948f86d65cb9c6d56c3036773',
      },
    ],
  },
];

describe('daily file bytes', () => {
  it.each(MARKETS.map((market, index) => [index, market] as const))('stay pinned for market %i', (_, { options, pins }) => {
    const model = createMarketModel(options);
    for (const pin of pins) {
      const file = model.dailyFile(pin.exchange, pin.symbol, pin.date, pin.kind, pin.revision);
      const label = `${pin.exchange} ${pin.symbol} ${pin.date} ${pin.kind} r${pin.revision}`;
      expect({ label, rows: file.rows, sha256: file.sha256 }).toEqual({ label, rows: pin.rows, sha256: pin.sha256 });
    }
  });
});
