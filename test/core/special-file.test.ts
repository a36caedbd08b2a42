import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isSpecialFile } from '../../src/core/special-file.js';

describe('isSpecialFile', () => {
  it('refuses devices and kernel views, takes ordinary files and paths not there yet', () => {
    expect(isSpecialFile('/dev/null')).toBe(true);
    expect(isSpecialFile('/proc/self/status')).toBe(true);
    const folder = mkdtempSync(join(tmpdir(), 'gexwh-special-'));
    try {
      writeFileSync(join(folder, 'gex.duckdb'), '');
      expect(isSpecialFile(join(folder, 'gex.duckdb'))).toBe(false);
      expect(isSpecialFile(join(folder, 'not-yet.duckdb'))).toBe(false);
      expect(isSpecialFile(folder)).toBe(false);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  // /dev/shm is a RAM disk (tmpfs): a scratch warehouse there is an ordinary file, not a device.
  it.runIf(process.platform === 'linux')('takes an ordinary file on the RAM disk under /dev/shm', () => {
    const folder = mkdtempSync('/dev/shm/gexwh-special-');
    try {
      writeFileSync(join(folder, 'gex.duckdb'), '');
      expect(isSpecialFile(join(folder, 'gex.duckdb'))).toBe(false);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
