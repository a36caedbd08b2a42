// The archive's one rule for paths: resolved under the root after following links; out of it refused.
// The root's own parent is outside it: a folder linked to `..` would put the archive's writes beside
// it (a mutation that counted the parent as inside survived every other test).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { folderLeavesArchive, isInside, locateInArchive } from '../../../src/core/archive/confine.js';

describe('isInside (pure)', () => {
  it('the root and what lies below it are inside', () => {
    expect(isInside('/a/raw', '/a/raw')).toBe(true);
    expect(isInside('/a/raw', '/a/raw/bybit/BTC')).toBe(true);
    expect(isInside('/a/raw', '/a/raw/..data')).toBe(true);
  });
  it("the root's parent, its siblings and other trees are not", () => {
    expect(isInside('/a/raw', '/a')).toBe(false);
    expect(isInside('/a/raw', '/')).toBe(false);
    expect(isInside('/a/raw', '/a/raw2')).toBe(false);
    expect(isInside('/a/raw', '/a/other/x')).toBe(false);
    expect(isInside('/a/raw', '/b')).toBe(false);
  });
});

describe('folders and files reached through links', () => {
  let base: string;
  let root: string;
  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'gexwh-confine-'));
    root = join(base, 'raw');
    mkdirSync(root);
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it("a folder that is a link to the archive's parent leads out of it", async () => {
    symlinkSync('..', join(root, '_quarantine'));
    expect(await folderLeavesArchive(root, '_quarantine')).toMatch(/outside the archive/);
    symlinkSync(dirname(base), join(root, 'bybit'));
    expect(await folderLeavesArchive(root, 'bybit')).toMatch(/outside the archive/);
  });

  it('a folder linked inside the archive, or not made yet, stays inside', async () => {
    mkdirSync(join(root, 'real'));
    symlinkSync('real', join(root, 'alias'));
    expect(await folderLeavesArchive(root, 'alias')).toBeUndefined();
    expect(await folderLeavesArchive(root, 'bybit/BTC')).toBeUndefined();
  });

  it('a file under a link to the parent is refused, never found', async () => {
    writeFileSync(join(base, 'x.csv.gz'), 'outside');
    symlinkSync('..', join(root, 'bybit'));
    expect((await locateInArchive(root, 'bybit/x.csv.gz')).kind).toBe('refused');
  });
});
