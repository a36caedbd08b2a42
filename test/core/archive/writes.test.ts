import { existsSync, mkdirSync, mkdtempSync, promises, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { archivePath } from '../../../src/core/archive/layout.js';
import { commitToArchive, removeStaleTemps, tempPathFor } from '../../../src/core/archive/writes.js';

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gexwh-archive-'));
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
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
