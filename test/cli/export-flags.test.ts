import { describe, expect, it } from 'vitest';
import { checkExportFlags, type ExportFlags } from '../../src/cli/export-flags.js';
import { UsageError } from '../../src/core/errors.js';

describe("export's flags", () => {
  const out = 'exports';

  it.each([
    [{ format: 'json' }, 'export: unknown format "json"; allowed: parquet, csv'],
    [{ table: ['sync.files'] }, 'export: unknown table "sync.files"; allowed: levels, strikes_total, strikes_by_expiry'],
    [{ since: '2026-13' }, 'export: --since: "2026-13" is not a real date YYYY-MM-DD'],
    [{ since: '2026-02-30' }, 'export: --since: "2026-02-30" is not a real date YYYY-MM-DD'],
    [{ until: '' }, 'export: --until: "" is not a real date YYYY-MM-DD'],
    [{ exchange: ['nyse'] }, 'export: unknown exchange "nyse"; allowed: bybit, deribit, okx, derive, combined, tradfi'],
    [{ symbol: ['../x'] }, /^export: bad symbol "..\/X"; allowed: /],
    [{ since: '2026-11-22', until: '2026-11-21' }, 'export: --since 2026-11-22 is after --until 2026-11-21'],
    [{ out: ' ' }, 'export: --out DIR (or s3://bucket/prefix) is required'],
    [{ s3Endpoint: 'http://localhost:9000' }, 'export: --s3-endpoint and --s3-force-path-style apply to an s3://bucket/prefix --out only'],
    [{ out: 's3://my-bucket/p', s3Endpoint: 'localhost:9000' }, 'export: --s3-endpoint must be an http(s) URL'],
  ] as const)('%j is a usage error naming what is allowed', (bad, message) => {
    const flags = { out, ...bad } as ExportFlags;
    expect(() => checkExportFlags(flags)).toThrow(UsageError);
    expect(() => checkExportFlags(flags)).toThrow(message);
  });

  it('good flags pass with names in their case: venues lower, symbols upper', () => {
    expect(
      checkExportFlags({ out, format: 'csv', table: ['levels'], since: '2026-01-01', until: '2026-01-31', exchange: ['Deribit'], symbol: ['btc'], full: true }),
    ).toEqual({
      outDir: out,
      format: 'csv',
      tables: ['levels'],
      since: '2026-01-01',
      until: '2026-01-31',
      exchanges: ['deribit'],
      symbols: ['BTC'],
      full: true,
    });
    expect(checkExportFlags({ out })).toEqual({ outDir: out, full: false });
    expect(checkExportFlags({ out: 's3://bucket/prefix', s3ForcePathStyle: true })).toEqual({
      outDir: 's3://bucket/prefix',
      full: false,
      s3: { forcePathStyle: true },
    });
  });
});
