// Counts the reads of an archive's journal packages as the file system sees them: every read of the
// packages lists their folder once (readPackages), so counting that listing counts the reads, with
// no module replaced (the product runs as built, loaded natively).
import { mkdtempSync, promises as fs, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, vi } from 'vitest';
import { packagesFolder } from '../../src/journal/layout.js';

export interface PackageReads {
  /** How many times the packages' folder was listed since the last reset. */
  count(): number;
  reset(): void;
  restore(): void;
}

export function countPackageReads(archiveRoot: string): PackageReads {
  const folder = resolve(packagesFolder(archiveRoot));
  const listed: string[] = [];
  const original = fs.readdir.bind(fs);
  const spy = vi.spyOn(fs, 'readdir').mockImplementation(((path: Parameters<typeof fs.readdir>[0], options?: unknown) => {
    listed.push(resolve(String(path)));
    return original(path, options as never);
  }) as typeof fs.readdir);
  return {
    count: () => listed.filter((path) => path === folder).length,
    reset: () => void listed.splice(0),
    restore: () => spy.mockRestore(),
  };
}

/** A temporary folder per test of the file, whose `archive/` packages' reads are counted. */
export function packageReadsEachTest(prefix: string): { readonly dir: string; readonly reads: PackageReads } {
  let dir = '';
  let reads: PackageReads | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    reads = countPackageReads(join(dir, 'archive'));
  });
  afterEach(() => {
    reads?.restore();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    get dir() {
      return dir;
    },
    get reads() {
      if (reads === undefined) throw new Error('packageReadsEachTest: read outside a test');
      return reads;
    },
  };
}
