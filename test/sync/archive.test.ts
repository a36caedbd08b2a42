import { existsSync, mkdirSync, mkdtempSync, promises, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UnsafeResponseError } from '../../src/core/errors.js';
import {
  archivePath,
  commitToArchive,
  listArchivedFiles,
  parseArchivePath,
  removeStaleTemps,
  tempPathFor,
} from '../../src/sync/archive.js';

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

describe('temp files and commit', () => {
  it('writes through a hidden .part name in the final folder, then renames', async () => {
    const finalPath = archivePath(root, 'okx', 'ETH', '2024-06-03', 'levels');
    const tempPath = tempPathFor(finalPath);
    expect(dirname(tempPath)).toBe(dirname(finalPath));
    expect(tempPath).toMatch(/\/\.2024-06-03_levels\.csv\.gz\.[0-9a-f]{12}\.part$/);
    expect(tempPathFor(finalPath)).not.toBe(tempPath);
    writeFileSync(tempPath, 'gzip bytes');
    await commitToArchive(tempPath, finalPath);
    expect(readFileSync(finalPath, 'utf8')).toBe('gzip bytes');
    expect(existsSync(tempPath)).toBe(false);
  });

  it('fsyncs the file, then after the rename its folder, and the parents of every folder it made', async () => {
    const synced: string[] = [];
    const realOpen = promises.open.bind(promises);
    const spy = vi.spyOn(promises, 'open').mockImplementation(async (...args: Parameters<typeof promises.open>) => {
      const handle = await realOpen(...args);
      const realSync = handle.sync.bind(handle);
      handle.sync = async () => {
        synced.push(String(args[0]));
        await realSync();
      };
      return handle;
    });
    try {
      const finalPath = archivePath(root, 'okx', 'ETH', '2024-06-03', 'levels');
      const tempPath = tempPathFor(finalPath); // makes okx/ and okx/ETH/
      writeFileSync(tempPath, 'gzip bytes');
      await commitToArchive(tempPath, finalPath);
      expect(synced).toEqual([tempPath, dirname(finalPath), join(root, 'okx'), root]);
      // The next file of the same folder: only the file and its folder, the new entries are durable.
      synced.length = 0;
      const next = archivePath(root, 'okx', 'ETH', '2024-06-04', 'levels');
      const nextTemp = tempPathFor(next);
      writeFileSync(nextTemp, 'more');
      await commitToArchive(nextTemp, next);
      expect(synced).toEqual([nextTemp, dirname(next)]);
    } finally {
      spy.mockRestore();
    }
  });

  it('replaces an older archived version', async () => {
    const finalPath = archivePath(root, 'okx', 'ETH', '2024-06-03', 'levels');
    mkdirSync(dirname(finalPath), { recursive: true });
    writeFileSync(finalPath, 'old');
    const tempPath = tempPathFor(finalPath);
    writeFileSync(tempPath, 'new');
    await commitToArchive(tempPath, finalPath);
    expect(readFileSync(finalPath, 'utf8')).toBe('new');
  });

  it('refuses a temp file from another folder', async () => {
    const finalPath = archivePath(root, 'okx', 'ETH', '2024-06-03', 'levels');
    const stray = join(root, 'elsewhere.part');
    writeFileSync(stray, 'x');
    await expect(commitToArchive(stray, finalPath)).rejects.toThrow(/not in the folder/);
    expect(existsSync(finalPath)).toBe(false);
  });

  it('fails when the temp file is missing', async () => {
    const finalPath = archivePath(root, 'okx', 'ETH', '2024-06-03', 'levels');
    await expect(commitToArchive(tempPathFor(finalPath), finalPath)).rejects.toThrow(/ENOENT/);
  });
});

describe('removeStaleTemps', () => {
  it('removes leftover .part files and keeps archived and foreign files', async () => {
    const kept = archivePath(root, 'deribit', 'BTC', '2024-06-03', 'levels');
    const stale1 = tempPathFor(kept);
    const stale2 = tempPathFor(archivePath(root, 'tradfi', 'SPY', '2024-05-31', 'strikes_total'));
    writeFileSync(kept, 'a');
    writeFileSync(stale1, 'b');
    writeFileSync(stale2, 'c');
    const notOurs = join(dirname(kept), 'notes.part');
    writeFileSync(notOurs, 'd');
    const removed = await removeStaleTemps(root);
    expect(removed.sort()).toEqual([stale1, stale2].sort());
    expect(readdirSync(dirname(kept)).sort()).toEqual(['2024-06-03_levels.csv.gz', 'notes.part']);
  });

  it('does not follow symbolic links out of the archive', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'gexwh-outside-'));
    try {
      const victim = join(outside, '.x.csv.gz.0123456789ab.part');
      writeFileSync(victim, 'keep me');
      mkdirSync(join(root, 'okx'), { recursive: true });
      symlinkSync(outside, join(root, 'okx', 'ETH'));
      expect(await removeStaleTemps(root)).toEqual([]);
      expect(existsSync(victim)).toBe(true);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('is a no-op for a missing archive', async () => {
    expect(await removeStaleTemps(join(root, 'none'))).toEqual([]);
  });
});

describe('reading the archive back', () => {
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

  it('lists archived files, skipping temps and strays', async () => {
    const a = archivePath(root, 'deribit', 'BTC', '2024-06-03', 'levels');
    const b = archivePath(root, 'tradfi', 'SPY', '2024-05-31', 'strikes_by_expiry');
    for (const path of [a, b]) mkdirSync(dirname(path), { recursive: true });
    for (const path of [a, b, tempPathFor(a), join(dirname(a), 'README')]) writeFileSync(path, 'x');
    const files = await listArchivedFiles(root);
    expect(files.map((f) => f.path)).toEqual([a, b]);
    expect(files[1]).toMatchObject({ exchange: 'tradfi', symbol: 'SPY', file: 'strikes_by_expiry' });
    expect(resolve(files[0]!.path).startsWith(resolve(root))).toBe(true);
  });
});
