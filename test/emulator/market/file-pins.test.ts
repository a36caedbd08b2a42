import { describe, expect, it } from 'vitest';
import { createMarketModel, type FileKind, type MarketOptions } from '../../../emulator/market/index.js';

// The emulator promises that a seed gives the same files, byte for byte, on every run and build: a
// synced warehouse and its manifest sha256 stay valid. These sha256 values were recorded from the
// build before the file writer was optimised; a change to any byte of a file (number text, row
// order, gzip settings) fails here instead of passing silently. Re-recorded once on purpose, when the
// market's positioning began to drift from session to session instead of being drawn afresh; the
// early close's pin once more when a TradFi expiry's cutoff became the 13:00 close on such a day.
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
        sha256: '51670ab472a71cc3e6d4f3f3efb7206ba46c9eca9016369a55f709f2e3c6f824',
      },
      {
        exchange: 'bybit',
        symbol: 'BTC',
        date: '2026-06-01',
        kind: 'strikes_total',
        revision: 0,
        rows: 17280,
        sha256: 'e8c42f5fded96360a984c8e3493ef3a98c0f44e7dacbfba3c9bab5c0ad139af3',
      },
      {
        exchange: 'bybit',
        symbol: 'BTC',
        date: '2026-06-01',
        kind: 'strikes_by_expiry',
        revision: 0,
        rows: 138240,
        sha256: 'c96b60dac6dbc8305cee38d65d1d614a550d322531491d8493a191f6e4ddc566',
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
        sha256: '1f6d2e8354be7fab6cde37b9696a213ef5c17ddd5811d74d7a7acc7e6cdbc37d',
      },
      {
        exchange: 'deribit',
        symbol: 'ETH',
        date: '2025-11-28',
        kind: 'strikes_total',
        revision: 0,
        rows: 1152,
        sha256: 'c3d3dc7d91c83a6d65a0e04e8e3410d406694c749066914ae72508831e6d69e1',
      },
      {
        exchange: 'deribit',
        symbol: 'ETH',
        date: '2025-11-28',
        kind: 'strikes_by_expiry',
        revision: 0,
        rows: 3456,
        sha256: '9be2f6c66219b2320f7fb0dbef4b901d9956f5424efe7314196e5af78a4a4115',
      },
      // An NYSE early close, at the second compression level.
      {
        exchange: 'tradfi',
        symbol: 'SPY',
        date: '2025-11-28',
        kind: 'strikes_total',
        revision: 256,
        rows: 180,
        sha256: '3e59a429eb2077663cb53fe3db6d02be9fa09bd5b772c23f223d7bf29074643e',
      },
      // Open interest from the Friday before.
      {
        exchange: 'tradfi',
        symbol: 'QQQ',
        date: '2025-12-01',
        kind: 'strikes_by_expiry',
        revision: 513,
        rows: 972,
        sha256: '9e24ebfeeb7b3ea0e0c235e30d55ea2acb2babf4678b837b934292ef86ac5b2e',
      },
      {
        exchange: 'combined',
        symbol: 'BTC',
        date: '2025-12-26',
        kind: 'levels',
        revision: 1,
        rows: 384,
        sha256: 'f8af7bdaf9748579baa9d89c89df37ec5e137588cb481507cb4ddc215f1e2570',
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
        sha256: '0b9246096c7f5006ac1f43483ed59da47083d98a55fcf5fa9283ae54c43fe234',
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
