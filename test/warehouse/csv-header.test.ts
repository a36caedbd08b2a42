import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { mapHeader, parseHeaderLine, readGzipHeaderLine } from '../../src/warehouse/csv-header.js';
import { HEADERS, makeTempDir } from './fixtures.js';

describe('parseHeaderLine', () => {
  it('splits plain, quoted and BOM-prefixed headers', () => {
    expect(parseHeaderLine('\uFEFFa,"b,c", d ,"e""f"\r')).toEqual(['a', 'b,c', 'd', 'e"f']);
  });
});

describe('mapHeader', () => {
  it('maps by name in file order; unknown and ignored columns read as text', () => {
    const mapping = mapHeader('strikes_total', ['strike', 'spot', 'Mystery', ...HEADERS.strikes_total.filter((n) => n !== 'strike' && n !== 'spot')]);
    expect(mapping.missing).toEqual([]);
    expect(mapping.unknown).toEqual([{ header: 'Mystery', column: 'mystery', alias: 'extra_2' }]);
    expect(mapping.columns.slice(0, 3)).toEqual([
      { alias: 'strike', type: 'DOUBLE' },
      { alias: 'extra_1', type: 'VARCHAR' },
      { alias: 'extra_2', type: 'VARCHAR' },
    ]);
  });

  it("lists missing required columns (the grain, the strikes files' GEX) and rejects duplicates", () => {
    expect(
      mapHeader(
        'levels',
        HEADERS.levels.filter((n) => n !== 'atm_iv' && n !== 'dte'),
      ).missing,
    ).toEqual([]);
    expect(mapHeader('levels', ['spot']).missing).toEqual(['timestamp_utc', 'expiration']);
    expect(mapHeader('strikes_by_expiry', ['timestamp_utc', 'strike', 'strike_put_gex']).missing).toEqual(['expiration', 'strike_call_gex']);
    expect(() => mapHeader('levels', ['spot', 'SPOT'])).toThrow(/twice/);
  });

  it('types strikes_by_expiry expiration as DATE and levels expiration as text', () => {
    expect(mapHeader('strikes_by_expiry', HEADERS.strikes_by_expiry).columns.find((c) => c.alias === 'expiration')?.type).toBe('DATE');
    expect(mapHeader('levels', HEADERS.levels).columns.find((c) => c.alias === 'expiration')?.type).toBe('VARCHAR');
  });
});

describe('readGzipHeaderLine', () => {
  it('returns the first line of a large gzip without reading it all', async () => {
    const { dir, cleanup } = makeTempDir();
    try {
      const path = join(dir, 'big.csv.gz');
      writeFileSync(path, gzipSync(`a,b\r\n${'1,2\n'.repeat(500_000)}`));
      expect(await readGzipHeaderLine(path)).toBe('a,b');
    } finally {
      cleanup();
    }
  });

  it('fails on an empty file and on a file that is not gzip', async () => {
    const { dir, cleanup } = makeTempDir();
    try {
      writeFileSync(join(dir, 'empty.gz'), gzipSync(''));
      writeFileSync(join(dir, 'plain.gz'), 'a,b\n');
      await expect(readGzipHeaderLine(join(dir, 'empty.gz'))).rejects.toThrow(/empty/);
      await expect(readGzipHeaderLine(join(dir, 'plain.gz'))).rejects.toThrow();
    } finally {
      cleanup();
    }
  });
});
