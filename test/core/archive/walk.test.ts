import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { archivePath } from '../../../src/core/archive/layout.js';
import { listArchivedFiles, scanArchive } from '../../../src/core/archive/walk.js';

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gexwh-archive-'));
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const tempOf = (path: string) => join(dirname(path), `.${basename(path)}.0123456789ab.part`);

describe('the archive walk', () => {
  it('lists archived files, skipping temps and strays', async () => {
    const a = archivePath(root, 'deribit', 'BTC', '2024-06-03', 'levels');
    const b = archivePath(root, 'tradfi', 'SPY', '2024-05-31', 'strikes_by_expiry');
    for (const path of [a, b]) mkdirSync(dirname(path), { recursive: true });
    for (const path of [a, b, tempOf(a), join(dirname(a), 'README')]) writeFileSync(path, 'x');
    const files = await listArchivedFiles(root);
    expect(files.map((f) => f.path)).toEqual([a, b]);
    expect(files[1]).toMatchObject({ exchange: 'tradfi', symbol: 'SPY', file: 'strikes_by_expiry' });
    expect(resolve(files[0]!.path).startsWith(resolve(root))).toBe(true);
  });

  it('lists daily files of the layout, skips .part temps, names everything else; follows links inside the archive only', async () => {
    const dir = root;
    const folder = join(dir, 'okx', 'ETH');
    mkdirSync(folder, { recursive: true });
    for (const name of [
      '2026-03-10_levels.csv.gz',
      '2026-03-09_strikes_by_expiry.csv.gz',
      '2026-13-45_levels.csv.gz',
      '2026-03-10_quotes.csv.gz',
      '.2026-03-10_levels.csv.gz.0123456789ab.part',
    ]) {
      writeFileSync(join(folder, name), 'x');
    }
    mkdirSync(join(folder, 'old'));
    mkdirSync(join(dir, 'nasdaq', 'SPY'), { recursive: true });
    mkdirSync(join(dir, '_journal'));
    mkdirSync(join(dir, '_quarantine'));
    writeFileSync(join(dir, 'README'), 'x');
    symlinkSync(folder, join(dir, 'okx', 'LINK')); // inside the archive: followed, its files judged by their names
    const outside = mkdtempSync(join(tmpdir(), 'gexwh-outside-'));
    try {
      writeFileSync(join(outside, 'x.csv.gz'), 'x');
      symlinkSync(join(outside, 'x.csv.gz'), join(folder, '2026-03-11_levels.csv.gz'));
      symlinkSync(outside, join(dir, 'okx', 'FAR'));
      symlinkSync(join(outside, 'gone'), join(folder, '2026-03-12_levels.csv.gz'));
      const scan = await scanArchive(dir);
      expect(scan.files.map((f) => [f.exchange, f.symbol, f.sessionDate, f.file])).toEqual([
        ['okx', 'ETH', '2026-03-09', 'strikes_by_expiry'],
        ['okx', 'ETH', '2026-03-10', 'levels'],
        ['okx', 'LINK', '2026-03-09', 'strikes_by_expiry'],
        ['okx', 'LINK', '2026-03-10', 'levels'],
      ]);
      expect(scan.strays).toEqual(
        [
          join(dir, 'README'),
          join(dir, 'nasdaq'),
          join(folder, '2026-03-10_quotes.csv.gz'),
          join(folder, '2026-13-45_levels.csv.gz'),
          join(folder, 'old'),
          join(dir, 'okx', 'LINK', '2026-03-10_quotes.csv.gz'),
          join(dir, 'okx', 'LINK', '2026-13-45_levels.csv.gz'),
          join(dir, 'okx', 'LINK', 'old'),
        ].sort(),
      );
      expect(scan.refused.map((r) => r.path)).toEqual([
        join(dir, 'okx', 'ETH', '2026-03-11_levels.csv.gz'),
        join(dir, 'okx', 'ETH', '2026-03-12_levels.csv.gz'),
        join(dir, 'okx', 'FAR'),
        join(dir, 'okx', 'LINK', '2026-03-11_levels.csv.gz'),
        join(dir, 'okx', 'LINK', '2026-03-12_levels.csv.gz'),
      ]);
      expect(scan.refused[0]?.reason).toMatch(/outside the archive .*not followed/);
      expect(scan.refused[1]?.reason).toMatch(/leads nowhere/);
      expect(scan.temps).toEqual([
        join(folder, '.2026-03-10_levels.csv.gz.0123456789ab.part'),
        join(dir, 'okx', 'LINK', '.2026-03-10_levels.csv.gz.0123456789ab.part'),
      ]);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
    expect(await scanArchive(join(dir, 'none'))).toEqual({ files: [], temps: [], strays: [], refused: [] });
  });
});
