// hashFile: the one file hasher (staged export files, archive copies in tests): sha256 and the bytes hashed.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashFile } from '../../src/core/hash.js';
import { makeTempDir } from '../warehouse/fixtures.js';

describe('hashFile', () => {
  it('gives the sha256 and size of a file, empty or larger than one read (1 MiB)', () => {
    const { dir, cleanup } = makeTempDir();
    writeFileSync(join(dir, 'abc'), 'abc');
    writeFileSync(join(dir, 'empty'), '');
    // Several reads of the 1 MiB buffer, the last one short: hashed and counted across all of them.
    const big = Buffer.from(Array.from({ length: 2_500_000 }, (_, i) => i % 251));
    writeFileSync(join(dir, 'big'), big);
    expect(hashFile(join(dir, 'abc'))).toEqual({ sha256: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad', bytes: 3 });
    expect(hashFile(join(dir, 'empty'))).toEqual({ sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', bytes: 0 });
    expect(hashFile(join(dir, 'big'))).toEqual({ sha256: createHash('sha256').update(big).digest('hex'), bytes: 2_500_000 });
    cleanup();
  });
});
